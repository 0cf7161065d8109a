package availabilityzonepriority

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

// threeZones has one node per zone za, zb, zc (n0, n1, n2) and one pod on
// each, ordinals 0, 1, 2, of capacity 10.
func threeZones() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "zb").Node("n2", "zc").Pods("n0", "n1", "n2")
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
			// zones a=0 b=0 c=0: every zone holds the fewest -> 100
			name:    "nothing placed",
			cluster: threeZones(),
			src:     plugintest.Source(0),
			maxSkew: 1,
			want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// zones a=2 b=0 c=0: a would make skew 3 > 1, not allowed:
			// 9*(3-2)/3 = 3; b, c hold the fewest -> 100
			name:    "one zone ahead",
			cluster: threeZones(),
			src:     plugintest.Source(0, p(0, 2)),
			maxSkew: 1,
			want:    map[int32]int64{0: 3, 1: 100, 2: 100},
		},
		{
			// zones a=1 b=1 c=0: a, b would make skew 2 > 1: 9*(2-1)/2 = 4;
			// c holds the fewest -> 100
			name:    "two zones ahead",
			cluster: threeZones(),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    map[int32]int64{0: 4, 1: 4, 2: 100},
		},
		{
			// zones a=2 b=1 c=1, MaxSkew 2: a makes skew 3-1 = 2, allowed:
			// 100 - 50*(2-1)/2 = 75; b, c hold the fewest -> 100
			name:    "fuller zones score lower",
			cluster: threeZones(),
			src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1)),
			maxSkew: 2,
			want:    map[int32]int64{0: 75, 1: 100, 2: 100},
		},
		{
			// pods 0 and 3 are both in za: zones a=1 b=0 c=0, so both
			// score 9*(2-1)/2 = 4; b, c hold the fewest -> 100
			name:    "pods of one zone score alike",
			cluster: threeZones().Pods("n0"),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 1,
			want:    map[int32]int64{0: 4, 1: 100, 2: 100, 3: 4},
		},
		{
			// zd has a node but no pod and is not counted: zones
			// a=1 b=1 c=1 all hold the fewest -> 100.
			// Counting zd (0) would leave every zone at 9*(2-1)/2 = 4.
			name:    "zone without pods is not counted",
			cluster: threeZones().Node("n3", "zd"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			maxSkew: 1,
			want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// zc's only node is cordoned: zones a=1 b=1 hold the fewest -> 100
			name:    "zone with only cordoned nodes is not counted",
			cluster: threeZones().Cordon("n2"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    map[int32]int64{0: 100, 1: 100},
		},
		{
			// zones a=2 b=0 c=0: a 9*(3-2)/3 = 3; pod 3 is on a node without a
			// zone label while zones exist -> 0
			name:    "pod without a zone",
			cluster: threeZones().Node("n3", "").Pods("n3"),
			src:     plugintest.Source(0, p(0, 2)),
			maxSkew: 1,
			want:    map[int32]int64{0: 3, 1: 100, 2: 100, 3: 0},
		},
		{
			// no node has a zone label: neutral MaxScore everywhere
			name:    "no zones",
			cluster: frameworktest.NewCluster(10).Node("n0", "").Node("n1", "").Pods("n0", "n1", "n0"),
			src:     plugintest.Source(0, p(0, 2)),
			maxSkew: 1,
			want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// zones exist but only hold cordoned nodes: no counted zone,
			// neutral MaxScore for the remaining (unlabelled) pods
			name:    "no schedulable zones",
			cluster: frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "").Pods("n0", "n1", "n1").Cordon("n0"),
			src:     plugintest.Source(0, p(1, 2)),
			maxSkew: 1,
			want:    map[int32]int64{1: 100, 2: 100},
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

func TestScoreUnknownPod(t *testing.T) {
	d := plugintest.Decide(t, threeZones(), plugintest.Source(0))
	sc, st := mustNew(t, 1).Score(context.Background(), d, 9)
	if sc != 0 || !st.IsSuccess() {
		t.Errorf("Score of an unknown pod = %d, %v; want 0, success", sc, st)
	}
}

func TestDecodeArgs(t *testing.T) {
	reg := Spec.Registration()
	if reg.Name != Name || reg.Kinds != framework.KindScore || reg.Modes != framework.ForPlace || !reg.TakesArgs {
		t.Errorf("registration = %+v; want a Place score plugin named %s taking args", reg, Name)
	}
	path := field.NewPath("priorities").Index(0).Child("Args")
	cases := []struct {
		name     string
		raw      string
		want     *Args
		wantErrs []string
	}{
		{name: "no args", raw: "", want: &Args{MaxSkew: skew(1)}},
		{name: "empty object", raw: "{}", want: &Args{MaxSkew: skew(1)}},
		{name: "set", raw: `{"MaxSkew": 2}`, want: &Args{MaxSkew: skew(2)}},
		{
			name:     "zero",
			raw:      `{"MaxSkew": 0}`,
			wantErrs: []string{"priorities[0].Args.MaxSkew: Invalid value: 0: must be at least 1"},
		},
		{
			name:     "unknown field",
			raw:      `{"MaxSkew": 2, "Zones": 3}`,
			wantErrs: []string{`priorities[0].Args: Invalid value: "{\"MaxSkew\": 2, \"Zones\": 3}": json: unknown field "Zones"`},
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
	if want := "AvailabilityZonePriority: MaxSkew: Invalid value: 0: must be at least 1"; err == nil || err.Error() != want {
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
	cases := []struct {
		name       string
		cluster    func() *frameworktest.Cluster
		src        *frameworktest.VPod
		n          int32
		wantResult framework.Result
		want       []vsched.Placement
	}{
		{
			// za holds pods 0 and 1, zb pod 2, zc pod 3.
			// zones 0 0 0: all 100, pod 0 -> a=1: b, c 100 -> pod 2
			// -> a=1 b=1: c 100 -> pod 3 -> 1 1 1: all 50, pod 0
			// -> a=2 b=1 c=1: a 0, b and c 66 -> pod 2.
			name: "one vreplica per zone in turn",
			cluster: func() *frameworktest.Cluster {
				return frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "zb").Node("n2", "zc").Pods("n0", "n0", "n1", "n2")
			},
			src:        plugintest.Source(0),
			n:          5,
			wantResult: framework.Result{Changed: 5},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(2, 2, "n1", "zb"),
				plugintest.At(3, 1, "n2", "zc"),
			},
		},
		{
			// One zone, so pod 0 always scores 100 and the unlabelled pod 1
			// 0; pod 1 is used once pod 0 is full.
			name: "unlabelled pods last",
			cluster: func() *frameworktest.Cluster {
				return frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "").Pods("n0", "n1")
			},
			src:        plugintest.Source(0),
			n:          3,
			wantResult: framework.Result{Changed: 3},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 1, "n1", ""),
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
