package availabilitynodepriority

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

// threeNodes has nodes n0, n1, n2 (all in zone za) and one pod on each,
// ordinals 0, 1, 2, of capacity 10.
func threeNodes() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "za").Node("n2", "za").Pods("n0", "n1", "n2")
}

func TestScore(t *testing.T) {
	p := frameworktest.P
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		src     *frameworktest.VPod
		maxSkew int32
		want    map[int32]int64
	}{
		{
			// nodes 0 0 0: every node holds the fewest -> 100
			name:    "nothing placed",
			cluster: threeNodes(),
			src:     plugintest.Source(0),
			maxSkew: 1,
			want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// nodes n0=2 n1=0 n2=0: n0 would make skew 3 > 1, not allowed:
			// 9*(3-2)/3 = 3; n1, n2 hold the fewest -> 100
			name:    "one node ahead",
			cluster: threeNodes(),
			src:     plugintest.Source(0, p(0, 2)),
			maxSkew: 1,
			want:    map[int32]int64{0: 3, 1: 100, 2: 100},
		},
		{
			// nodes 2 1 1, MaxSkew 2: n0 makes skew 3-1 = 2, allowed:
			// 100 - 50*(2-1)/2 = 75; n1, n2 hold the fewest -> 100
			name:    "fuller nodes score lower",
			cluster: threeNodes(),
			src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1)),
			maxSkew: 2,
			want:    map[int32]int64{0: 75, 1: 100, 2: 100},
		},
		{
			// pods 0 and 3 share n0, which holds 1 + 2 = 3: nodes 3 1 0,
			// MaxSkew 3: n0 would make skew 4 > 3: 9*(4-3)/4 = 2;
			// n1 allowed: 100 - 50*(1-0)/3 = 84; n2 holds the fewest -> 100
			name:    "vreplicas count per node, not per pod",
			cluster: threeNodes().Pods("n0"),
			src:     plugintest.Source(0, p(0, 1), p(3, 2), p(1, 1)),
			maxSkew: 3,
			want:    map[int32]int64{0: 2, 1: 84, 2: 100, 3: 2},
		},
		{
			// n3 has no pod and is not counted: nodes 1 1 1 all hold the
			// fewest -> 100
			name:    "node without pods is not counted",
			cluster: threeNodes().Node("n3", "za"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			maxSkew: 1,
			want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// n2 is cordoned: nodes 1 1 hold the fewest -> 100
			name:    "cordoned node is not counted",
			cluster: threeNodes().Cordon("n2"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    map[int32]int64{0: 100, 1: 100},
		},
		{
			// nodes 6 0 0: n0 would make skew 7: 9*(7-6)/7 = 1; n1, n2 hold the
			// fewest -> 100
			name:    "already skewed",
			cluster: threeNodes(),
			src:     plugintest.Source(0, p(0, 6)),
			maxSkew: 1,
			want:    map[int32]int64{0: 1, 1: 100, 2: 100},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, tc.src)
			got := plugintest.Scores(t, mustNew(t, tc.maxSkew), d)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScoreWithoutCountedNodes(t *testing.T) {
	ctx := context.Background()
	pl := mustNew(t, 1)
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		ordinal int32
		want    int64
	}{
		// every node cordoned: nothing to spread over, neutral
		{name: "no schedulable nodes", cluster: threeNodes().Cordon("n0").Cordon("n1").Cordon("n2"), ordinal: 0, want: 100},
		// an unbound pod is on no node while nodes exist
		{name: "unbound pod", cluster: threeNodes().Pods(""), ordinal: 3, want: 0},
		{name: "unknown pod", cluster: threeNodes(), ordinal: 9, want: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, plugintest.Source(0))
			got, st := pl.Score(ctx, d, tc.ordinal)
			if got != tc.want || !st.IsSuccess() {
				t.Errorf("Score(%d) = %d, %v; want %d, success", tc.ordinal, got, st, tc.want)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	reg := Spec.Registration()
	if reg.Name != Name || reg.Kinds != framework.KindScore || reg.Modes != framework.ForPlace || !reg.TakesArgs {
		t.Errorf("registration = %+v; want a Place score plugin named %s taking args", reg, Name)
	}
	path := field.NewPath("priorities").Index(1).Child("Args")
	cases := []struct {
		name     string
		raw      string
		want     *Args
		wantErrs []string
	}{
		{name: "no args", raw: "", want: &Args{MaxSkew: skew(1)}},
		{name: "empty object", raw: "{}", want: &Args{MaxSkew: skew(1)}},
		{name: "set", raw: `{"MaxSkew": 4}`, want: &Args{MaxSkew: skew(4)}},
		{
			name:     "zero",
			raw:      `{"MaxSkew": 0}`,
			wantErrs: []string{"priorities[1].Args.MaxSkew: Invalid value: 0: must be at least 1"},
		},
		{
			name:     "unknown field",
			raw:      `{"Skew": 2}`,
			wantErrs: []string{`priorities[1].Args: Invalid value: "{\"Skew\": 2}": json: unknown field "Skew"`},
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
	if want := "AvailabilityNodePriority: MaxSkew: Invalid value: 0: must be at least 1"; err == nil || err.Error() != want {
		t.Errorf("New(MaxSkew 0) = %v, want %q", err, want)
	}
	if _, err := Spec.Registration().New(context.Background(), &Args{MaxSkew: skew(-3)}); err == nil {
		t.Error("Registration.New accepted MaxSkew -3")
	}
}

func TestProfile(t *testing.T) {
	prof, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{podfitsresources.New()},
		[]framework.WeightedScore{{Plugin: mustNew(t, 1), Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !prof.Grouped() {
		t.Error("profile is not evaluated by class")
	}
	// n0 holds pods 0 and 1, n1 pod 2, n2 pod 3; capacity 2.
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "zb").Node("n2", "zb").Pods("n0", "n0", "n1", "n2")
	}
	cases := []struct {
		name       string
		src        *frameworktest.VPod
		n          int32
		wantResult framework.Result
		want       []vsched.Placement
	}{
		{
			// nodes 0 0 0: all 100 -> pod 0; 1 0 0: n1, n2 100 -> pod 2;
			// 1 1 0 -> pod 3; 1 1 1: all 50 -> pod 0; 2 1 1: n0 0, n1 and
			// n2 66 -> pod 2; 2 2 1 -> pod 3; 2 2 2: all 33, pod 0 full
			// -> pod 1 (n0's only pod with room).
			name:       "one vreplica per node in turn",
			src:        plugintest.Source(0),
			n:          7,
			wantResult: framework.Result{Changed: 7},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 1, "n0", "za"),
				plugintest.At(2, 2, "n1", "zb"),
				plugintest.At(3, 2, "n2", "zb"),
			},
		},
		{
			// n0 starts with 2 on pod 1: nodes 2 0 0 -> pod 2 -> 2 1 0
			// -> pod 3 -> 2 1 1: n0 0, n1 and n2 66 -> pod 2 -> 2 2 1
			// -> pod 3.
			name:       "catches up on emptier nodes first",
			src:        plugintest.Source(0, frameworktest.P(1, 2)),
			n:          4,
			wantResult: framework.Result{Changed: 4},
			want: []vsched.Placement{
				plugintest.At(1, 2, "n0", "za"),
				plugintest.At(2, 2, "n1", "zb"),
				plugintest.At(3, 2, "n2", "zb"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, got := plugintest.Run(t, newCluster, tc.src, prof, tc.n)
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}
