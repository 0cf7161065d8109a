package nomaxresourcecount

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/evenpodspread"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

func partitions(n int32) *int32 { return &n }

func mustNew(t *testing.T, numPartitions *int32) *Plugin {
	t.Helper()
	p, err := New(context.Background(), &Args{NumPartitions: numPartitions})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fourPods is four empty pods of capacity 10 on nodes n0, n1, n0, n1.
func fourPods() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0", "n1")
}

func TestFilter(t *testing.T) {
	reject := func(msg string) plugintest.Outcome {
		return plugintest.Outcome{Code: "UnschedulableAndUnresolvable", Message: msg}
	}
	p := frameworktest.P
	cases := []struct {
		name          string
		numPartitions *int32
		src           *frameworktest.VPod
		ordinal       int32
		want          plugintest.Outcome
	}{
		{
			name:          "below the limit",
			numPartitions: partitions(3),
			src:           plugintest.Source(0, p(0, 1), p(1, 1)),
			ordinal:       2,
			want:          plugintest.Pass,
		},
		{
			name:          "at the limit from NumPartitions",
			numPartitions: partitions(2),
			src:           plugintest.Source(0, p(0, 1), p(1, 1)),
			ordinal:       2,
			want:          reject("the source already spans 2 pod(s), the limit set by NumPartitions (2); only pods holding it may take more"),
		},
		{
			name:          "at the limit, pod holding the source",
			numPartitions: partitions(2),
			src:           plugintest.Source(0, p(0, 1), p(1, 1)),
			ordinal:       1,
			want:          plugintest.Pass,
		},
		{
			name:          "source's own count wins over a larger NumPartitions",
			numPartitions: partitions(10),
			src:           plugintest.Source(2, p(0, 1), p(1, 1)),
			ordinal:       2,
			want:          reject("the source already spans 2 pod(s), the limit set by the source's resource count (2); only pods holding it may take more"),
		},
		{
			name:          "source's own count wins over a smaller NumPartitions",
			numPartitions: partitions(1),
			src:           plugintest.Source(3, p(0, 1), p(1, 1)),
			ordinal:       2,
			want:          plugintest.Pass,
		},
		{
			name:    "source's own count without NumPartitions",
			src:     plugintest.Source(1, p(3, 4)),
			ordinal: 0,
			want:    reject("the source already spans 1 pod(s), the limit set by the source's resource count (1); only pods holding it may take more"),
		},
		{
			// Partitions were removed after the source spread out.
			name:          "already beyond the limit",
			numPartitions: partitions(2),
			src:           plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			ordinal:       3,
			want:          reject("the source already spans 3 pod(s), the limit set by NumPartitions (2); only pods holding it may take more"),
		},
		{
			name:    "no limit",
			src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			ordinal: 3,
			want:    plugintest.Pass,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, fourPods(), tc.src)
			got := plugintest.Filter(mustNew(t, tc.numPartitions), d, tc.ordinal)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter(%d) (-want +got):\n%s", tc.ordinal, diff)
			}
		})
	}
}

func TestPrepare(t *testing.T) {
	cases := []struct {
		name          string
		numPartitions *int32
		resources     int32
		want          framework.Code
	}{
		{name: "NumPartitions only", numPartitions: partitions(4), want: framework.Success},
		{name: "source's count only", resources: 4, want: framework.Success},
		{name: "both", numPartitions: partitions(4), resources: 2, want: framework.Success},
		{name: "neither", want: framework.Skip},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, fourPods(), plugintest.Source(tc.resources))
			if got := mustNew(t, tc.numPartitions).Prepare(context.Background(), d).Code(); got != tc.want {
				t.Errorf("Prepare = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	reg := Spec.Registration()
	if reg.Name != Name || reg.Kinds != framework.KindFilter || reg.Modes != framework.ForPlace || !reg.TakesArgs {
		t.Errorf("registration = %+v; want a Place filter named %s taking args", reg, Name)
	}
	path := field.NewPath("predicates").Index(1).Child("Args")
	cases := []struct {
		name     string
		raw      string
		want     *Args
		wantErrs []string
		limit    int32
	}{
		{name: "no args", raw: "", want: &Args{}},
		{name: "empty object", raw: "{}", want: &Args{}},
		{name: "set", raw: `{"NumPartitions": 100}`, want: &Args{NumPartitions: partitions(100)}, limit: 100},
		{
			name:     "zero",
			raw:      `{"NumPartitions": 0}`,
			wantErrs: []string{"predicates[1].Args.NumPartitions: Invalid value: 0: must be at least 1 when set"},
		},
		{
			name:     "negative",
			raw:      `{"NumPartitions": -5}`,
			wantErrs: []string{"predicates[1].Args.NumPartitions: Invalid value: -5: must be at least 1 when set"},
		},
		{
			name:     "unknown field",
			raw:      `{"Partitions": 3}`,
			wantErrs: []string{`predicates[1].Args: Invalid value: "{\"Partitions\": 3}": json: unknown field "Partitions"`},
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
			if got := pl.(*Plugin).numPartitions; got != tc.limit {
				t.Errorf("plugin NumPartitions = %d, want %d", got, tc.limit)
			}
		})
	}
}

func TestNew(t *testing.T) {
	p, err := New(context.Background(), nil)
	if err != nil {
		t.Fatalf("New(nil): %v", err)
	}
	if p.numPartitions != 0 || p.Name() != Name || !p.EquivalentWithinClass() {
		t.Errorf("New(nil) = %+v (name %q, equivalent %v), want no limit", p, p.Name(), p.EquivalentWithinClass())
	}
	_, err = New(context.Background(), &Args{NumPartitions: partitions(0)})
	if want := "NoMaxResourceCount: NumPartitions: Invalid value: 0: must be at least 1 when set"; err == nil || err.Error() != want {
		t.Errorf("New(NumPartitions 0) = %v, want %q", err, want)
	}
	if _, err := Spec.Registration().New(context.Background(), &Args{NumPartitions: partitions(-1)}); err == nil {
		t.Error("Registration.New accepted NumPartitions -1")
	}
}

func TestProfile(t *testing.T) {
	spread, err := evenpodspread.New(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	profile := func(numPartitions *int32) *framework.Profile {
		prof, err := framework.NewProfile(framework.Place,
			[]framework.FilterPlugin{podfitsresources.New(), mustNew(t, numPartitions)},
			[]framework.WeightedScore{{Plugin: spread, Weight: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if !prof.Grouped() {
			t.Error("profile is not evaluated by class")
		}
		return prof
	}
	// Capacity 2, four pods on nodes n0, n1, n0, n1.
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0", "n1")
	}
	cases := []struct {
		name          string
		numPartitions *int32
		src           *frameworktest.VPod
		n             int32
		wantResult    framework.Result
		want          []vsched.Placement
	}{
		{
			// EvenPodSpread alternates pods 0 and 1, then both are full
			// and pods 2 and 3 would be a third pod.
			name:          "NumPartitions caps the pods",
			numPartitions: partitions(2),
			src:           plugintest.Source(0),
			n:             5,
			wantResult: framework.Result{Changed: 4, Reason: `bound by NoMaxResourceCount, which rejected 2 pod(s) that have room; 4 candidate pod(s): ` +
				`PodFitsResources rejected 2 pod(s) (e.g. "pod adapter-0 is full (2/2 vreplicas)"); ` +
				`NoMaxResourceCount rejected 2 pod(s) (e.g. "the source already spans 2 pod(s), ` +
				`the limit set by NumPartitions (2); only pods holding it may take more")`},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 2, "n1", "zb"),
			},
		},
		{
			// Three partitions of its own: pods 0, 1, 2 get 1 each, then
			// pod 0 and 1 one more; pod 3 is never used.
			name:          "the source's own count wins",
			numPartitions: partitions(2),
			src:           plugintest.Source(3),
			n:             5,
			wantResult:    framework.Result{Changed: 5},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 2, "n1", "zb"),
				plugintest.At(2, 1, "n0", "za"),
			},
		},
		{
			// No limit: the plugin is skipped and EvenPodSpread uses
			// every pod.
			name:       "no limit",
			src:        plugintest.Source(0),
			n:          5,
			wantResult: framework.Result{Changed: 5},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 1, "n1", "zb"),
				plugintest.At(2, 1, "n0", "za"),
				plugintest.At(3, 1, "n1", "zb"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, got := plugintest.Run(t, newCluster, tc.src, profile(tc.numPartitions), tc.n)
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("skipped plugins are named in explanations", func(t *testing.T) {
		d := plugintest.Decide(t, newCluster(), plugintest.Source(0))
		ex := &framework.Explanation{}
		if _, err := profile(nil).Run(context.Background(), d, 1, ex); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{Name}, ex.Skipped); diff != "" {
			t.Errorf("skipped (-want +got):\n%s", diff)
		}
	})
}

// TestProfileWithEvenPodSpreadFilter runs the predicates of the design's
// example configuration: once the source spans its NumPartitions pods, the
// pods it may not use must not count as empty for EvenPodSpread, or the
// source would stop at MaxSkew vreplicas per pod while the pods have room.
func TestProfileWithEvenPodSpreadFilter(t *testing.T) {
	ctx := context.Background()
	two := int32(2)
	spread, err := evenpodspread.New(ctx, &evenpodspread.Args{MaxSkew: &two})
	if err != nil {
		t.Fatal(err)
	}
	prof, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{podfitsresources.New(), mustNew(t, partitions(2)), spread},
		[]framework.WeightedScore{{Plugin: spread, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// 0 0 0 0 -> pod 0; 1 0 0 0: pod 0 50, others 100 -> pod 1; the cap
	// is reached and 1 1 alone counts, so pods 0 and 1 alternate.
	res, got := plugintest.Run(t, fourPods, plugintest.Source(0), prof, 8)
	if diff := cmp.Diff(framework.Result{Changed: 8}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	want := []vsched.Placement{
		plugintest.At(0, 4, "n0", "za"),
		plugintest.At(1, 4, "n1", "zb"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
}
