package availabilityzonepriority

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

func mustNew(t *testing.T, maxSkew int32) *Plugin {
	return plugintest.Build(t, New, &Args{MaxSkew: &maxSkew})
}

// threeZones has one node per zone za, zb, zc (n0, n1, n2) and one pod on
// each, ordinals 0, 1, 2, of capacity 10.
func threeZones() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "zb").Node("n2", "zc").Pods("n0", "n1", "n2")
}

func TestScore(t *testing.T) {
	p := frameworktest.P
	cases := []plugintest.Scoring{
		{
			// zones a=0 b=0 c=0: every zone holds the fewest -> 100
			Name:    "nothing placed",
			Cluster: threeZones(),
			Src:     plugintest.Source(0),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// zones a=2 b=0 c=0: a would make skew 3 > 1, not allowed:
			// 9*(3-2)/3 = 3; b, c hold the fewest -> 100
			Name:    "one zone ahead",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 3, 1: 100, 2: 100},
		},
		{
			// zones a=1 b=1 c=0: a, b would make skew 2 > 1: 9*(2-1)/2 = 4;
			// c holds the fewest -> 100
			Name:    "two zones ahead",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 4, 1: 4, 2: 100},
		},
		{
			// zones a=2 b=1 c=1, MaxSkew 2: a makes skew 3-1 = 2, allowed:
			// 100 - 50*(2-1)/2 = 75; b, c hold the fewest -> 100
			Name:    "fuller zones score lower",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1)),
			Plugin:  mustNew(t, 2),
			Want:    map[int32]int64{0: 75, 1: 100, 2: 100},
		},
		{
			// pods 0 and 3 are both in za: zones a=1 b=0 c=0, so both
			// score 9*(2-1)/2 = 4; b, c hold the fewest -> 100
			Name:    "pods of one zone score alike",
			Cluster: threeZones().Pods("n0"),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 4, 1: 100, 2: 100, 3: 4},
		},
		{
			// zd has a node but no pod and is not counted: zones
			// a=1 b=1 c=1 all hold the fewest -> 100.
			// Counting zd (0) would leave every zone at 9*(2-1)/2 = 4.
			Name:    "zone without pods is not counted",
			Cluster: threeZones().Node("n3", "zd"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// zc's only node is cordoned: zones a=1 b=1 hold the fewest -> 100
			Name:    "zone with only cordoned nodes is not counted",
			Cluster: threeZones().Cordon("n2"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100},
		},
		{
			// zones a=2 b=0 c=0: a 9*(3-2)/3 = 3; pod 3 is on a node without a
			// zone label while zones exist -> 0
			Name:    "pod without a zone",
			Cluster: threeZones().Node("n3", "").Pods("n3"),
			Src:     plugintest.Source(0, p(0, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 3, 1: 100, 2: 100, 3: 0},
		},
		{
			// no node has a zone label: neutral MaxScore everywhere
			Name:    "no zones",
			Cluster: frameworktest.NewCluster(10).Node("n0", "").Node("n1", "").Pods("n0", "n1", "n0"),
			Src:     plugintest.Source(0, p(0, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// zones exist but only hold cordoned nodes: no counted zone,
			// neutral MaxScore for the remaining (unlabelled) pods
			Name:    "no schedulable zones",
			Cluster: frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "").Pods("n0", "n1", "n1").Cordon("n0"),
			Src:     plugintest.Source(0, p(1, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{1: 100, 2: 100},
		},
	}
	plugintest.ExpectScores(t, cases)
}

func TestScoreUnknownPod(t *testing.T) {
	d := plugintest.Decide(t, threeZones(), plugintest.Source(0))
	sc, st := mustNew(t, 1).Score(context.Background(), d, 9)
	if sc != 0 || !st.IsSuccess() {
		t.Errorf("Score of an unknown pod = %d, %v; want 0, success", sc, st)
	}
}

func TestArgs(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{
		Name: Name, Kinds: framework.KindScore, Modes: framework.ForPlace, TakesArgs: true,
	})
	plugintest.ExpectMaxSkewArgs(t, Spec, New, field.NewPath("priorities").Index(0).Child("Args"),
		func(p *Plugin) int32 { return p.maxSkew },
		frameworktest.ArgsCase[Args]{
			Name: "unknown field", Raw: `{"MaxSkew": 2, "Zones": 3}`,
			WantErrs: []string{`priorities[0].Args: Invalid value: "{\"MaxSkew\": 2, \"Zones\": 3}": json: unknown field "Zones"`},
		})
}

func TestNew(t *testing.T) {
	if p := plugintest.Build(t, New, nil); p.Name() != Name || !p.EquivalentWithinClass() {
		t.Errorf("New(nil) = %+v (name %q, equivalent %v)", p, p.Name(), p.EquivalentWithinClass())
	}
}

func TestProfile(t *testing.T) {
	prof := plugintest.GroupedProfile(t,
		[]framework.FilterPlugin{podfitsresources.New()},
		[]framework.WeightedScore{{Plugin: mustNew(t, 1), Weight: 1}})
	cases := []plugintest.Placing{
		{
			// za holds pods 0 and 1, zb pod 2, zc pod 3.
			// zones 0 0 0: all 100, pod 0 -> a=1: b, c 100 -> pod 2
			// -> a=1 b=1: c 100 -> pod 3 -> 1 1 1: all 50, pod 0
			// -> a=2 b=1 c=1: a 0, b and c 66 -> pod 2.
			Name: "one vreplica per zone in turn",
			Cluster: func() *frameworktest.Cluster {
				return frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "zb").Node("n2", "zc").Pods("n0", "n0", "n1", "n2")
			},
			Src:        plugintest.Source(0),
			N:          5,
			WantResult: framework.Result{Changed: 5},
			Want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(2, 2, "n1", "zb"),
				plugintest.At(3, 1, "n2", "zc"),
			},
		},
		{
			// One zone, so pod 0 always scores 100 and the unlabelled pod 1
			// 0; pod 1 is used once pod 0 is full.
			Name: "unlabelled pods last",
			Cluster: func() *frameworktest.Cluster {
				return frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "").Pods("n0", "n1")
			},
			Src:        plugintest.Source(0),
			N:          3,
			WantResult: framework.Result{Changed: 3},
			Want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 1, "n1", ""),
			},
		},
	}
	plugintest.ExpectPlacing(t, prof, cases)
}
