package framework_test

import (
	"context"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// statsProbe scores every pod 0 and records, at each call, every spread
// summary the Decision offers.
type statsProbe struct{ log *[]probed }

type probed struct {
	Ordinal                            int32
	Node, NodeRoom, ZoneRoom, PodStats framework.DomainStats
	InZone                             []framework.DomainStats
	ZoneRoomy, NodeRoomy               []bool
	ZoneFree                           []int64
}

func (statsProbe) Name() string { return "StatsProbe" }
func (p statsProbe) Score(_ context.Context, d *framework.Decision, ord int32) (int64, *framework.Status) {
	c := d.Cluster()
	e := probed{Ordinal: ord, Node: d.NodeStats(), NodeRoom: d.NodeRoomStats(), ZoneRoom: d.ZoneRoomStats(), PodStats: d.PodStats()}
	for z := int32(-1); z <= int32(c.NumZones()); z++ {
		e.InZone = append(e.InZone, d.NodeRoomStatsInZone(z))
		e.ZoneRoomy = append(e.ZoneRoomy, d.ZoneHasRoom(z))
	}
	for z := int32(0); z < int32(c.NumZones()); z++ {
		free, ok := d.ZoneFree(z)
		if !ok {
			for _, o := range c.Candidates() {
				if info, _ := c.Pod(o); info.ZoneIndex == z {
					free += int64(max(0, d.Free(o)))
				}
			}
		}
		e.ZoneFree = append(e.ZoneFree, free)
	}
	for n := int32(-1); n <= int32(c.NumNodes()); n++ {
		e.NodeRoomy = append(e.NodeRoomy, d.NodeHasRoom(n))
	}
	*p.log = append(*p.log, e)
	return 0, nil
}

// The summaries a RoomIndex cluster gives from its counts and the nodes a
// decision touches are the ones a walk over every node gives, step by step
// as the decision places or removes.
func TestRoomIndexMatchesScan(t *testing.T) {
	defer framework.SetRoomIndexMin(0)()
	for seed := int64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		sc := ft.RandomScenario(rng)
		for _, mode := range []framework.Mode{framework.Place, framework.Remove} {
			var plain, indexed []probed
			var filters []framework.FilterPlugin
			if mode == framework.Place {
				filters = capacityOnly()
			}
			for _, run := range []struct {
				c   framework.Cluster
				log *[]probed
			}{{sc.Cluster, &plain}, {sc.Cluster.Indexed(), &indexed}} {
				p := newProfile(t, mode, filters, ws(statsProbe{log: run.log}, 1))
				d, err := framework.NewDecision(mode, run.c, ft.NewVPod("ns", "src", 0), sc.Base)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Run(context.Background(), d, sc.N, nil); err != nil {
					t.Fatal(err)
				}
			}
			if d := cmp.Diff(plain, indexed); d != "" {
				t.Fatalf("seed %d, %s: summaries differ (-walk +index):\n%s", seed, mode, d)
			}
		}
	}
}
