package removewithavailabilityzonepriority

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

// threeZones has one node per zone and two pods per node: pods 0 and 3 in
// zone-a, 1 and 4 in zone-b, 2 and 5 in zone-c.
func threeZones() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).
		Node("n0", "zone-a").Node("n1", "zone-b").Node("n2", "zone-c").
		Pods("n0", "n1", "n2", "n0", "n1", "n2")
}

func TestArgs(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{
		Name: Name, Kinds: framework.KindScore, Modes: framework.ForRemove, TakesArgs: true,
	})
	plugintest.ExpectMaxSkewArgs(t, Spec, New, field.NewPath("Args"),
		func(p *Plugin) int32 { return p.maxSkew },
		frameworktest.ArgsCase[Args]{
			Name: "unknown field", Raw: `{"MaxSkew": 1, "Zones": 3}`,
			WantErrs: []string{`Args: Invalid value: "{\"MaxSkew\": 1, \"Zones\": 3}": json: unknown field "Zones"`},
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
			// Zones a=3+1=4, b=2+1=3, c=2. From a: {3,3,2} skew 1 <= 1,
			// ceil(100*4/4) = 100. From b: {4,2,2} skew 2 > 1, from c:
			// {4,3,1} skew 3 > 1, while a keeps 1: both forbidden.
			Name:    "fullest zone first, others forbidden by MaxSkew 1",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 3), p(1, 2), p(2, 2), p(3, 1), p(4, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0, 2: 0, 3: 100, 4: 0},
		},
		{
			// As above with MaxSkew 2: b -> skew 2 allowed,
			// ceil(100*3/4) = (300+3)/4 = 75; c -> skew 3 forbidden.
			Name:    "proportional within MaxSkew 2",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 3), p(1, 2), p(2, 2), p(3, 1), p(4, 1)),
			Plugin:  mustNew(t, 2),
			Want:    map[int32]int64{0: 100, 1: 75, 2: 0, 3: 100, 4: 75},
		},
		{
			// Zones a=2, b=1, c=0 (counted: it hosts candidates). From
			// a: {1,1,0} skew 1; from b: {2,0,0} skew 2 > 1: forbidden.
			Name:    "a zone holding none counts as 0",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0},
		},
		{
			// Zones a=4, b=1, c=0: from a {3,1,0} skew 3 > 1, so
			// nothing keeps MaxSkew and nothing is forbidden:
			// a (fullest) 100, b max(1, 9*ceil(100*1/4)/100) = 9*25/100 = 2.
			Name:    "already uneven: proportional only",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 4), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 2},
		},
		{
			// n2 is cordoned: zone-c hosts no candidate and is not
			// counted; pod 2 there scores MaxScore. Counted a=2, b=1:
			// from a {1,1} skew 0, 100; from b {2,0} skew 2 > 1,
			// forbidden. (Counting c's 5 would give a only 40.)
			Name:    "pod in a cordoned zone first, zone not counted",
			Cluster: threeZones().Cordon("n2"),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 5)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0, 2: 100},
		},
		{
			// Pod 0 drains: MaxScore. Its zone still hosts pod 3, and
			// zone a counts every vreplica there: a=1+2=3, b=1, c=0.
			// From a {2,1,0} skew 2 > 1 is the best there is, so
			// nothing is forbidden: pod 3 100, pod 1 9*ceil(100/3)/100 = 9*34/100 = 3.
			Name:    "draining pod first in a counted zone",
			Cluster: threeZones().Drain(0),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(3, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 3, 3: 100},
		},
		{
			// Pod 6 is on n3, which has no zone label while others
			// have: outside every counted zone, MaxScore. Pod 7 is
			// beyond the 7 replicas: MaxScore. Counted a=1, b=1, c=0:
			// any removal leaves skew 1, so a and b both score 100.
			Name:    "unzoned and unknown pods score MaxScore",
			Cluster: threeZones().Node("n3", "").Pods("n3"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(6, 3), p(7, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100, 6: 100, 7: 100},
		},
		{
			// No node has a zone label: nothing to spread over, every
			// holder scores MaxScore.
			Name:    "no zones at all",
			Cluster: frameworktest.NewCluster(10).Node("n0", "").Node("n1", "").Pods("n0", "n1"),
			Src:     plugintest.Source(0, p(0, 5), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100},
		},
		{
			// Pod 4 holds none of the source: nothing to remove, 0.
			Name:    "non-holder scores 0",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{1: 100, 4: 0},
		},
	}
	plugintest.ExpectRemovalScores(t, tests)
}

func TestRemove(t *testing.T) {
	tests := []plugintest.Removing{
		{
			// a=2+2=4, b=1, c=1. Step 1: a scores 100 (nothing keeps
			// MaxSkew 1), b and c 25: pods 0 and 3 tie, pod 3 goes
			// (highest ordinal). Step 2: a=3, {2,1,1} keeps skew 1,
			// b and c forbidden: pod 3 again. Step 3: a=2, pod 0.
			Name:        "heaviest zone first",
			Cluster:     threeZones,
			Src:         plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1), p(3, 2)),
			Plugin:      mustNew(t, 1),
			N:           3,
			WantChanged: 3,
			Want: []vsched.Placement{
				plugintest.At(0, 1, "n0", "zone-a"), plugintest.At(1, 1, "n1", "zone-b"), plugintest.At(2, 1, "n2", "zone-c"),
			},
			WantOrder: []int32{3, 3, 0},
		},
		{
			// zone-c is cordoned: pods 2 and 5 score MaxScore and empty
			// first (highest ordinal first), then the counted a=2, b=1
			// lose from a.
			Name:        "cordoned zone empties first",
			Cluster:     func() *frameworktest.Cluster { return threeZones().Cordon("n2") },
			Src:         plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1), p(5, 1)),
			Plugin:      mustNew(t, 1),
			N:           3,
			WantChanged: 3,
			Want: []vsched.Placement{
				plugintest.At(0, 1, "n0", "zone-a"), plugintest.At(1, 1, "n1", "zone-b"),
			},
			WantOrder: []int32{5, 2, 0},
		},
	}
	plugintest.ExpectRemoving(t, tests)
}
