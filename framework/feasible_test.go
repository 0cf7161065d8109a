package framework_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// feasibleProbe scores every pod alike and records FeasibleZoneStats as each
// step's scoring sees it.
type feasibleProbe struct{ seen *[]framework.DomainStats }

func (feasibleProbe) Name() string { return "FeasibleProbe" }
func (p feasibleProbe) Score(_ context.Context, d *framework.Decision, _ int32) (int64, *framework.Status) {
	*p.seen = append(*p.seen, d.FeasibleZoneStats())
	return 0, nil
}

// During a step, FeasibleZoneStats counts only the zones with a pod that
// passed every filter; outside Run it is ZoneRoomStats.
func TestFeasibleZoneStats(t *testing.T) {
	// zone a: pods 0 (a1) and 3 (a1); zone b: 1 (b1); zone c: 2 (c1),
	// capacity 2. The source holds 1 on pod 1 (zone b) and 2 on pod 2.
	c := ft.NewCluster(2).Node("a1", "a").Node("b1", "b").Node("c1", "c").Pods("a1", "b1", "c1", "a1")
	placed := ft.NewVPod("ns", "src", 0, ft.P(1, 1), ft.P(2, 2)).Placements
	c.UsePlacements(placed)
	var seen []framework.DomainStats
	// The filter rejects zone a's pods: only zone b (pod 1, one free)
	// can take the vreplica; zone c is full.
	p := newProfile(t, framework.Place,
		[]framework.FilterPlugin{ft.CapacityFilter{}, &ft.RejectFilter{Ordinals: []int32{0, 3}}},
		ws(feasibleProbe{seen: &seen}, 1))
	d, err := framework.NewDecision(framework.Place, c, ft.NewVPod("ns", "src", 0, placed...), placed)
	if err != nil {
		t.Fatal(err)
	}
	// Outside a step: zones with free capacity, a (0) and b (1).
	if diff := cmp.Diff(ft.StatsOf([]int32{0, 1}), d.FeasibleZoneStats()); diff != "" {
		t.Errorf("before Run (-ZoneRoomStats +got):\n%s", diff)
	}
	if _, err := p.Run(context.Background(), d, 1, nil); err != nil {
		t.Fatal(err)
	}
	// In the step: zone b only, holding 1.
	if diff := cmp.Diff([]framework.DomainStats{ft.StatsOf([]int32{1})}, seen); diff != "" {
		t.Errorf("during Run (-want +got):\n%s", diff)
	}
	// After: zone b is full too; zone a has room.
	if diff := cmp.Diff(ft.StatsOf([]int32{0}), d.FeasibleZoneStats()); diff != "" {
		t.Errorf("after Run (-ZoneRoomStats +got):\n%s", diff)
	}
}
