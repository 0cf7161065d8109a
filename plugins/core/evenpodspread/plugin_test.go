package evenpodspread

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
	"github.com/vsched/vsched/plugins/internal/podlimit"
)

func skew(n int32) *int32 { return &n }

func mustNew(t *testing.T, maxSkew int32) *Plugin {
	t.Helper()
	p, err := New(context.Background(), &Args{MaxSkew: skew(maxSkew)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// threePods is three empty pods of capacity 10 on nodes n0, n0 and n1.
func threePods() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "").Node("n1", "").Pods("n0", "n0", "n1")
}

func TestFilter(t *testing.T) {
	reject := func(msg string) plugintest.Outcome {
		return plugintest.Outcome{Code: "Unschedulable", Message: msg}
	}
	p := frameworktest.P
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		src     *frameworktest.VPod
		maxSkew int32
		limit   int32 // pod cap published by NoMaxResourceCount; 0 for none
		ordinal int32
		want    plugintest.Outcome
	}{
		{
			// 0 0 0 -> 1 0 0: skew 1
			name:    "first vreplica",
			cluster: threePods(),
			src:     plugintest.Source(0),
			maxSkew: 1,
			want:    plugintest.Pass,
		},
		{
			// 1 0 0 -> 2 0 0: skew 2 > 1
			name:    "second on the same pod",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 1,
			want:    reject("pod adapter-0 holds 1 of the source's vreplicas; one more would make the skew across pods 2, above MaxSkew 1"),
		},
		{
			// 1 0 0 -> 1 1 0: skew 1
			name:    "second on another pod",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 1,
			ordinal: 1,
			want:    plugintest.Pass,
		},
		{
			// 1 0 0 -> 2 0 0: skew 2 <= 2
			name:    "second on the same pod with MaxSkew 2",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 2,
			want:    plugintest.Pass,
		},
		{
			// pods 1 and 2 are full with other sources and not eligible:
			// 1 -> 2, a single pod has no skew
			name:    "full pods not holding the source are not counted",
			cluster: threePods().Use(1, 10).Use(2, 10),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 1,
			want:    plugintest.Pass,
		},
		{
			// pod 0 is full but holds 1, so it counts: 1 2 -> 1 3: skew 2
			name:    "full pods holding the source are counted",
			cluster: threePods().Use(0, 9).Use(2, 10),
			src:     plugintest.Source(0, p(0, 1), p(1, 2)),
			maxSkew: 1,
			ordinal: 1,
			want:    reject("pod adapter-1 holds 2 of the source's vreplicas; one more would make the skew across pods 2, above MaxSkew 1"),
		},
		{
			// pod 2 is on a cordoned node and not a candidate:
			// 1 1 -> 2 1: skew 1
			name:    "pods on cordoned nodes are not counted",
			cluster: threePods().Cordon("n1"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    plugintest.Pass,
		},
		{
			// 1 1 0 -> 2 1 0: skew 2
			name:    "same placements with pod 2 schedulable",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    reject("pod adapter-0 holds 1 of the source's vreplicas; one more would make the skew across pods 2, above MaxSkew 1"),
		},
		{
			// 5 0 0 -> 5 1 0: skew stays 5 > 1, but pod 1 holds the
			// fewest, so the source can even out
			name:    "already skewed, least loaded pod",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 5)),
			maxSkew: 1,
			ordinal: 1,
			want:    plugintest.Pass,
		},
		{
			// 5 0 0 -> 6 0 0: skew 6
			name:    "already skewed, most loaded pod",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 5)),
			maxSkew: 1,
			want:    reject("pod adapter-0 holds 5 of the source's vreplicas; one more would make the skew across pods 6, above MaxSkew 1"),
		},
		{
			// 5 2 0 -> 5 3 0: skew 5, and pod 1 does not hold the fewest
			name:    "already skewed, pod in between",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 5), p(1, 2)),
			maxSkew: 1,
			ordinal: 1,
			want:    reject("pod adapter-1 holds 2 of the source's vreplicas; one more would make the skew across pods 5, above MaxSkew 1"),
		},
		{
			// The source may span 2 pods and does: pod 2 can never take
			// any, so only 1 1 counts -> 2 1: skew 1
			name:    "pod cap reached: only holders count",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			limit:   2,
			want:    plugintest.Pass,
		},
		{
			// cap 3 not reached: 1 1 0 -> 2 1 0: skew 2
			name:    "pod cap not reached: every eligible pod counts",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			limit:   3,
			want:    reject("pod adapter-0 holds 1 of the source's vreplicas; one more would make the skew across pods 2, above MaxSkew 1"),
		},
		{
			// cap 2 reached: 3 1 -> 4 1: skew 3
			name:    "pod cap reached: holders still even out",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 3), p(1, 1)),
			maxSkew: 1,
			limit:   2,
			want:    reject("pod adapter-0 holds 3 of the source's vreplicas; one more would make the skew across pods 3, above MaxSkew 1"),
		},
		{
			// cap 3 reached, but pod 2's node is cordoned: only 1 1
			// counts -> 2 1: skew 1
			name:    "pod cap reached: holders that are not candidates do not count",
			cluster: threePods().Cordon("n1"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 5)),
			maxSkew: 1,
			limit:   3,
			want:    plugintest.Pass,
		},
		{
			// An unknown pod holds 0, never more than the fewest.
			name:    "unknown pod",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 5)),
			maxSkew: 1,
			ordinal: 7,
			want:    plugintest.Pass,
		},
		{
			// Pod 3 was deleted while holding 2; counted pods 1 0 0.
			name:    "deleted pod still holding the source",
			cluster: threePods().Pods("n1").Remove(3),
			src:     plugintest.Source(0, p(0, 1), p(3, 2)),
			maxSkew: 1,
			ordinal: 3,
			want:    reject("pod with ordinal 3 holds 2 of the source's vreplicas; one more would make the skew across pods 3, above MaxSkew 1"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, tc.src)
			if tc.limit > 0 {
				podlimit.Set(d, tc.limit)
			}
			got := plugintest.Filter(mustNew(t, tc.maxSkew), d, tc.ordinal)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter(%d) (-want +got):\n%s", tc.ordinal, diff)
			}
		})
	}
}

func TestScore(t *testing.T) {
	p := frameworktest.P
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		src     *frameworktest.VPod
		maxSkew int32
		limit   int32 // pod cap published by NoMaxResourceCount; 0 for none
		want    map[int32]int64
	}{
		{
			// 0 0 0: every pod holds the fewest -> 100
			name:    "nothing placed",
			cluster: threePods(),
			src:     plugintest.Source(0),
			maxSkew: 1,
			want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// 1 0 0: pod 0 would make skew 2 > 1, not allowed: 9*(2-1)/2 = 4;
			// pods 1, 2 hold the fewest -> 100
			name:    "one placed",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 1,
			want:    map[int32]int64{0: 4, 1: 100, 2: 100},
		},
		{
			// 2 1 1, MaxSkew 2: pod 0 makes skew 3-1 = 2, allowed:
			// 100 - 50*(2-1)/2 = 75; pods 1, 2 hold the fewest -> 100
			name:    "fuller pods score lower",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1)),
			maxSkew: 2,
			want:    map[int32]int64{0: 75, 1: 100, 2: 100},
		},
		{
			// 3 1 0, MaxSkew 3: pod 0 would make skew 4 > 3: 9*(4-3)/4 = 2;
			// pod 1 allowed: 100 - 50*(1-0)/3 = 84; pod 2 holds the fewest -> 100
			name:    "over MaxSkew scores 0",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 3), p(1, 1)),
			maxSkew: 3,
			want:    map[int32]int64{0: 2, 1: 84, 2: 100},
		},
		{
			// cap 2 reached, only 1 1 counts: both hold the fewest -> 100;
			// pod 2 (c=0, below every holder) -> 100, but NoMaxResourceCount
			// rejects it
			name:    "pod cap reached",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			limit:   2,
			want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// 6 0 0: pod 0 would make skew 7: 9*(7-6)/7 = 1; pods 1 and 2 hold
			// the fewest -> 100
			name:    "already skewed",
			cluster: threePods(),
			src:     plugintest.Source(0, p(0, 6)),
			maxSkew: 1,
			want:    map[int32]int64{0: 1, 1: 100, 2: 100},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, tc.src)
			if tc.limit > 0 {
				podlimit.Set(d, tc.limit)
			}
			got := plugintest.Scores(t, mustNew(t, tc.maxSkew), d)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	reg := Spec.Registration()
	if reg.Name != Name || reg.Kinds != framework.KindFilter|framework.KindScore || reg.Modes != framework.ForPlace || !reg.TakesArgs {
		t.Errorf("registration = %+v; want a Place filter and score plugin named %s taking args", reg, Name)
	}
	path := field.NewPath("predicates").Index(2).Child("Args")
	cases := []struct {
		name     string
		raw      string
		want     *Args
		wantErrs []string
	}{
		{name: "no args", raw: "", want: &Args{MaxSkew: skew(1)}},
		{name: "empty object", raw: "{}", want: &Args{MaxSkew: skew(1)}},
		{name: "set", raw: `{"MaxSkew": 3}`, want: &Args{MaxSkew: skew(3)}},
		{
			name:     "lower-case name",
			raw:      `{"maxSkew": 2}`,
			wantErrs: []string{`predicates[2].Args: Invalid value: "{\"maxSkew\": 2}": json: unknown field "maxSkew" (did you mean "MaxSkew"?)`},
		},
		{
			name:     "zero",
			raw:      `{"MaxSkew": 0}`,
			wantErrs: []string{"predicates[2].Args.MaxSkew: Invalid value: 0: must be at least 1"},
		},
		{
			name:     "negative",
			raw:      `{"MaxSkew": -1}`,
			wantErrs: []string{"predicates[2].Args.MaxSkew: Invalid value: -1: must be at least 1"},
		},
		{
			name:     "unknown field",
			raw:      `{"MaxSkw": 2}`,
			wantErrs: []string{`predicates[2].Args: Invalid value: "{\"MaxSkw\": 2}": json: unknown field "MaxSkw" (did you mean "MaxSkew"?)`},
		},
		{
			name:     "wrong type",
			raw:      `{"MaxSkew": "2"}`,
			wantErrs: []string{`predicates[2].Args: Invalid value: "{\"MaxSkew\": \"2\"}": field MaxSkew: cannot use JSON string as int32`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, errs := reg.DecodeArgs([]byte(tc.raw), path)
			if diff := cmp.Diff(tc.wantErrs, plugintest.Errors(errs)); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(errs) > 0 {
				return
			}
			if diff := cmp.Diff(tc.want, args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			pl, err := reg.New(context.Background(), args)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := pl.(*Plugin).maxSkew; got != *tc.want.MaxSkew {
				t.Errorf("plugin MaxSkew = %d, want %d", got, *tc.want.MaxSkew)
			}
		})
	}
}

func TestNew(t *testing.T) {
	p, err := New(context.Background(), nil)
	if err != nil {
		t.Fatalf("New(nil): %v", err)
	}
	if p.maxSkew != 1 || p.Name() != Name || !p.EquivalentWithinClass() {
		t.Errorf("New(nil) = %+v (name %q, equivalent %v), want MaxSkew 1", p, p.Name(), p.EquivalentWithinClass())
	}
	_, err = New(context.Background(), &Args{MaxSkew: skew(0)})
	if want := "EvenPodSpread: MaxSkew: Invalid value: 0: must be at least 1"; err == nil || err.Error() != want {
		t.Errorf("New(MaxSkew 0) = %v, want %q", err, want)
	}
	_, err = Spec.Registration().New(context.Background(), &Args{MaxSkew: skew(-3)})
	if err == nil {
		t.Error("Registration.New accepted MaxSkew -3")
	}
}

func TestProfile(t *testing.T) {
	p := frameworktest.P
	pl := mustNew(t, 1)
	prof, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{podfitsresources.New(), pl},
		[]framework.WeightedScore{{Plugin: pl, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !prof.Grouped() {
		t.Error("profile is not evaluated by class")
	}
	cases := []struct {
		name       string
		cluster    func() *frameworktest.Cluster
		src        *frameworktest.VPod
		n          int32
		wantResult framework.Result
		want       []vsched.Placement
	}{
		{
			// 0 0 0 -> 1 0 0 -> 1 1 0 -> 1 1 1 -> 2 1 1 -> 2 2 1
			name:       "round robin from nothing",
			cluster:    func() *frameworktest.Cluster { return threePods() },
			src:        plugintest.Source(0),
			n:          5,
			wantResult: framework.Result{Changed: 5},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", ""),
				plugintest.At(1, 2, "n0", ""),
				plugintest.At(2, 1, "n1", ""),
			},
		},
		{
			// The source grew to 4 while the StatefulSet had one pod:
			// 4 0 0 -> 4 1 0 -> 4 1 1 -> 4 2 1 -> 4 2 2 -> 4 3 2.
			name:       "evens out a source that is already skewed",
			cluster:    func() *frameworktest.Cluster { return threePods() },
			src:        plugintest.Source(0, p(0, 4)),
			n:          5,
			wantResult: framework.Result{Changed: 5},
			want: []vsched.Placement{
				plugintest.At(0, 4, "n0", ""),
				plugintest.At(1, 3, "n0", ""),
				plugintest.At(2, 2, "n1", ""),
			},
		},
		{
			// Pod 0 is full, holding 1: 1 0 0 -> 1 1 0 -> 1 1 1 -> 1 2 1
			// -> 1 2 2; then pods 1 and 2 would make skew 2 and pod 0 is
			// full.
			name:    "a full pod holding the source caps the others",
			cluster: func() *frameworktest.Cluster { return threePods().Use(0, 9) },
			src:     plugintest.Source(0, p(0, 1)),
			n:       5,
			wantResult: framework.Result{Changed: 4, Reason: `bound by EvenPodSpread, which rejected 2 pod(s) that have room; 3 candidate pod(s): ` +
				`PodFitsResources rejected 1 pod(s) (e.g. "pod adapter-0 is full (10/10 vreplicas)"); ` +
				`EvenPodSpread rejected 2 pod(s) (e.g. "pod adapter-1 holds 2 of the source's vreplicas; ` +
				`one more would make the skew across pods 2, above MaxSkew 1")`},
			want: []vsched.Placement{
				plugintest.At(0, 1, "n0", ""),
				plugintest.At(1, 2, "n0", ""),
				plugintest.At(2, 2, "n1", ""),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, got := plugintest.Run(t, tc.cluster, tc.src, prof, tc.n)
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}
