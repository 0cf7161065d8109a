package removewithavailabilitynodepriority

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

var p = frameworktest.P

func mustNew(t *testing.T, maxSkew int32) *Plugin {
	return plugintest.Build(t, New, &Args{MaxSkew: &maxSkew})
}

// fourNodes has nodes n0 and n1 in zone-a, n2 in zone-b and n3 in zone-c,
// with pods 0 and 4 on n0, 1 on n1, 2 on n2 and 3 on n3.
func fourNodes() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).
		Node("n0", "zone-a").Node("n1", "zone-a").Node("n2", "zone-b").Node("n3", "zone-c").
		Pods("n0", "n1", "n2", "n3", "n0")
}

func TestArgs(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{
		Name: Name, Kinds: framework.KindScore, Modes: framework.ForRemove, TakesArgs: true,
	})
	plugintest.ExpectMaxSkewArgs(t, Spec, New, field.NewPath("Args"),
		func(p *Plugin) int32 { return p.maxSkew },
		frameworktest.ArgsCase[Args]{
			Name: "unknown field", Raw: `{"MaxSkew": 1, "Nodes": 3}`,
			WantErrs: []string{`Args: Invalid value: "{\"MaxSkew\": 1, \"Nodes\": 3}": json: unknown field "Nodes"`},
		})
}

func TestNew(t *testing.T) {
	if pl := plugintest.Build(t, New, nil); pl.Name() != Name {
		t.Errorf("New(nil) = %+v named %q", pl, pl.Name())
	}
}

func TestScore(t *testing.T) {
	tests := []plugintest.Scoring{
		{
			// Nodes n0=2+1=3, n1=2, n2=2, n3=2. From n0: {2,2,2,2}
			// skew 0, ceil(100*3/3) = 100. From n1..n3: {3,1,2,2}
			// skew 2 > 1 while n0 keeps 0: forbidden.
			Name:    "fullest node first, others forbidden by MaxSkew 1",
			Cluster: fourNodes(),
			Src:     plugintest.Source(0, p(0, 2), p(1, 2), p(2, 2), p(3, 2), p(4, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0, 2: 0, 3: 0, 4: 100},
		},
		{
			// As above with MaxSkew 2: {3,1,2,2} skew 2 allowed,
			// 100 - 50*(3-2)/2 = 75.
			Name:    "proportional within MaxSkew 2",
			Cluster: fourNodes(),
			Src:     plugintest.Source(0, p(0, 2), p(1, 2), p(2, 2), p(3, 2), p(4, 1)),
			Plugin:  mustNew(t, 2),
			Want:    map[int32]int64{0: 100, 1: 75, 2: 75, 3: 75, 4: 100},
		},
		{
			// Nodes n0=2, n1=1, n2=0, n3=0 (counted: they host
			// candidates). From n0 {1,1,0,0} skew 1; from n1 {2,0,0,0}
			// skew 2 > 1: forbidden. Pods 0 and 1 share zone-a: only
			// nodes matter here.
			Name:    "a node holding none counts as 0",
			Cluster: fourNodes(),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0},
		},
		{
			// n0=6, n1=2, n2=0, n3=0: from n0 {5,2,0,0} skew 5 > 1,
			// nothing keeps MaxSkew: n0 (fullest) 100, n1
			// max(1, 9*ceil(200/6)/100) = 9*34/100 = 3.
			Name:    "already uneven: proportional only",
			Cluster: fourNodes(),
			Src:     plugintest.Source(0, p(0, 6), p(1, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 3},
		},
		{
			// n3 is cordoned: not counted, pod 3 scores MaxScore.
			// Counted n0=2, n1=1, n2=1: from n0 {1,1,1} skew 0; from
			// n1 {2,0,1} skew 2 > 1: forbidden. (Counting n3's 6 would
			// give n0 only 34.)
			Name:    "pod on a cordoned node first, node not counted",
			Cluster: fourNodes().Cordon("n3"),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1), p(3, 6)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0, 2: 0, 3: 100},
		},
		{
			// Pod 4 drains: MaxScore. n0 still hosts pod 0 and counts
			// both: n0=1+3=4, n1=1, n2=0, n3=0. From n0 {3,1,0,0}
			// skew 3 > 1 is the best there is: pod 0 (fullest) 100, pod 1
			// max(1, 9*ceil(100/4)/100) = 9*25/100 = 2.
			Name:    "draining pod first on a counted node",
			Cluster: fourNodes().Drain(4),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(4, 3)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 2, 4: 100},
		},
		{
			// Pod 5 is unbound and pod 9 beyond the 6 replicas: both
			// MaxScore. Counted n0=1, n1=1, n2=n3=0: skew 1 either way.
			Name:    "unbound and unknown pods score MaxScore",
			Cluster: fourNodes().Pods(""),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(5, 2), p(9, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100, 5: 100, 9: 100},
		},
		{
			// Every node is cordoned: no counted node, every holder is
			// unavailable and scores MaxScore.
			Name:    "no counted nodes",
			Cluster: fourNodes().Cordon("n0").Cordon("n1").Cordon("n2").Cordon("n3"),
			Src:     plugintest.Source(0, p(0, 5), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100},
		},
		{
			// Pod 2 holds none of the source: nothing to remove, 0.
			Name:    "non-holder scores 0",
			Cluster: fourNodes(),
			Src:     plugintest.Source(0, p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{1: 100, 2: 0},
		},
	}
	plugintest.ExpectRemovalScores(t, tests)
}

func TestRemove(t *testing.T) {
	tests := []plugintest.Removing{
		{
			// n0 = pod 0 (1) + pod 4 (3) = 4, n1=1, n2=1, n3=1.
			// Step 1: n0 100 (nothing keeps MaxSkew 1), others 25; pods
			// 0 and 4 tie, pod 4 goes. Step 2: n0=3, {2,1,1,1} keeps
			// skew 1, the rest forbidden: pod 4 again. Step 3: n0=2,
			// {1,1,1,1}: pod 4 empties. Pod 0 keeps its one.
			Name:        "heaviest node first",
			Cluster:     fourNodes,
			Src:         plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1), p(3, 1), p(4, 3)),
			Plugin:      mustNew(t, 1),
			N:           3,
			WantChanged: 3,
			Want: []vsched.Placement{
				plugintest.At(0, 1, "n0", "zone-a"), plugintest.At(1, 1, "n1", "zone-a"), plugintest.At(2, 1, "n2", "zone-b"), plugintest.At(3, 1, "n3", "zone-c"),
			},
			WantOrder: []int32{4, 4, 4},
		},
		{
			// n1 is cordoned: pod 1 scores MaxScore and empties first,
			// then n0 (2 vs 1, 1) gives one.
			Name:        "cordoned node empties first",
			Cluster:     func() *frameworktest.Cluster { return fourNodes().Cordon("n1") },
			Src:         plugintest.Source(0, p(0, 2), p(1, 2), p(2, 1), p(3, 1)),
			Plugin:      mustNew(t, 1),
			N:           3,
			WantChanged: 3,
			Want: []vsched.Placement{
				plugintest.At(0, 1, "n0", "zone-a"), plugintest.At(2, 1, "n2", "zone-b"), plugintest.At(3, 1, "n3", "zone-c"),
			},
			WantOrder: []int32{1, 1, 0},
		},
	}
	plugintest.ExpectRemoving(t, tests)
}
