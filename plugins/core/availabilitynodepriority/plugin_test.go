package availabilitynodepriority

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

// threeNodes has nodes n0, n1, n2 (all in zone za) and one pod on each,
// ordinals 0, 1, 2, of capacity 10.
func threeNodes() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "za").Node("n2", "za").Pods("n0", "n1", "n2")
}

func TestScore(t *testing.T) {
	p := frameworktest.P
	cases := []plugintest.Scoring{
		{
			// nodes 0 0 0: every node holds the fewest -> 100
			Name:    "nothing placed",
			Cluster: threeNodes(),
			Src:     plugintest.Source(0),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// nodes n0=2 n1=0 n2=0: n0 would make skew 3 > 1, not allowed:
			// 9*(3-2)/3 = 3; n1, n2 hold the fewest -> 100
			Name:    "one node ahead",
			Cluster: threeNodes(),
			Src:     plugintest.Source(0, p(0, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 3, 1: 100, 2: 100},
		},
		{
			// nodes 2 1 1, MaxSkew 2: n0 makes skew 3-1 = 2, allowed:
			// 100 - 50*(2-1)/2 = 75; n1, n2 hold the fewest -> 100
			Name:    "fuller nodes score lower",
			Cluster: threeNodes(),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1)),
			Plugin:  mustNew(t, 2),
			Want:    map[int32]int64{0: 75, 1: 100, 2: 100},
		},
		{
			// pods 0 and 3 share n0, which holds 1 + 2 = 3: nodes 3 1 0,
			// MaxSkew 3: n0 would make skew 4 > 3: 9*(4-3)/4 = 2;
			// n1 allowed: 100 - 50*(1-0)/3 = 84; n2 holds the fewest -> 100
			Name:    "vreplicas count per node, not per pod",
			Cluster: threeNodes().Pods("n0"),
			Src:     plugintest.Source(0, p(0, 1), p(3, 2), p(1, 1)),
			Plugin:  mustNew(t, 3),
			Want:    map[int32]int64{0: 2, 1: 84, 2: 100, 3: 2},
		},
		{
			// n3 has no pod and is not counted: nodes 1 1 1 all hold the
			// fewest -> 100
			Name:    "node without pods is not counted",
			Cluster: threeNodes().Node("n3", "za"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// n2 is cordoned: nodes 1 1 hold the fewest -> 100
			Name:    "cordoned node is not counted",
			Cluster: threeNodes().Cordon("n2"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100},
		},
		{
			// nodes 6 0 0: n0 would make skew 7: 9*(7-6)/7 = 1; n1, n2 hold the
			// fewest -> 100
			Name:    "already skewed",
			Cluster: threeNodes(),
			Src:     plugintest.Source(0, p(0, 6)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 1, 1: 100, 2: 100},
		},
	}
	plugintest.ExpectScores(t, cases)
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

func TestArgs(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{
		Name: Name, Kinds: framework.KindScore, Modes: framework.ForPlace, TakesArgs: true,
	})
	plugintest.ExpectMaxSkewArgs(t, Spec, New, field.NewPath("priorities").Index(1).Child("Args"),
		func(p *Plugin) int32 { return p.maxSkew },
		frameworktest.ArgsCase[Args]{
			Name: "unknown field", Raw: `{"Skew": 2}`,
			WantErrs: []string{`priorities[1].Args: Invalid value: "{\"Skew\": 2}": json: unknown field "Skew"`},
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
	// n0 holds pods 0 and 1, n1 pod 2, n2 pod 3; capacity 2.
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "zb").Node("n2", "zb").Pods("n0", "n0", "n1", "n2")
	}
	cases := []plugintest.Placing{
		{
			// nodes 0 0 0: all 100 -> pod 0; 1 0 0: n1, n2 100 -> pod 2;
			// 1 1 0 -> pod 3; 1 1 1: all 50 -> pod 0; 2 1 1: n0 0, n1 and
			// n2 66 -> pod 2; 2 2 1 -> pod 3; 2 2 2: all 33, pod 0 full
			// -> pod 1 (n0's only pod with room).
			Name:       "one vreplica per node in turn",
			Cluster:    newCluster,
			Src:        plugintest.Source(0),
			N:          7,
			WantResult: framework.Result{Changed: 7},
			Want: []vsched.Placement{
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
			Name:       "catches up on emptier nodes first",
			Cluster:    newCluster,
			Src:        plugintest.Source(0, frameworktest.P(1, 2)),
			N:          4,
			WantResult: framework.Result{Changed: 4},
			Want: []vsched.Placement{
				plugintest.At(1, 2, "n0", "za"),
				plugintest.At(2, 2, "n1", "zb"),
				plugintest.At(3, 2, "n2", "zb"),
			},
		},
	}
	plugintest.ExpectPlacing(t, prof, cases)
}
