package statefulset

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/evictor"
)

// zoneCounts is a source's vreplicas by zone.
func (e *asEnv) zoneCounts(name string) map[string]int32 {
	e.t.Helper()
	out := map[string]int32{}
	for _, p := range e.placementsOf(name) {
		out[p.ZoneName] += p.VReplicas
	}
	return out
}

// A zone fails, its vreplicas move to the other two, and it recovers: the
// autoscaler requeues the sources that EvenZoneSpread now finds uneven, and
// their next Schedule moves the excess back, one per zone again. Without
// the rebalancing the sources would stay in two zones for good, and the
// StatefulSet would need more pods than the vreplicas fill.
func TestZoneRecoveryRebalancesHardSpread(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 6, profiles: profilesFromData(t, growthEvenZoneSpread, nil),
		config: func(c *config.AutoscalerConfig) { c.UnavailablePodGrace = time.Minute; c.MaxMovesPerSource = 10 }})
	names := []string{"s0", "s1", "s2", "s3"}
	for _, n := range names {
		e.create(n, 3)
	}
	want := map[string]int32{"zone-a": 1, "zone-b": 1, "zone-c": 1}
	for _, n := range names {
		if diff := cmp.Diff(want, e.zoneCounts(n)); diff != "" {
			t.Fatalf("setup: %s by zone (-want +got):\n%s", n, diff)
		}
	}
	// Zone c's pods are ordinals 2 and 5.
	zoneC := e.nodeOf(2)
	if err := e.c.FailNode(zoneC); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.step(2 * time.Minute)
	if d := e.reconcile(); d.Draining[2] != evictor.ReasonUnavailable {
		t.Fatalf("after the grace: %+v", d)
	}
	e.work()
	for _, n := range names {
		z := e.zoneCounts(n)
		if z["zone-c"] != 0 || z["zone-a"]+z["zone-b"] != 3 {
			t.Fatalf("zone c down: %s by zone = %v, want all 3 in zones a and b", n, z)
		}
	}

	if err := e.c.RecoverNode(zoneC); err != nil {
		t.Fatal(err)
	}
	e.sync()
	d := e.reconcile()
	if len(d.Draining) != 0 {
		t.Fatalf("after recovery the drain is lifted: %+v", d)
	}
	e.sync()
	// The cycle that sees zone c again requeues the uneven sources.
	for i := 0; i < 3 && len(d.Requeued) == 0; i++ {
		d = e.reconcile()
	}
	if len(d.Requeued) != len(names) || len(d.Rebalancing) != len(names) {
		t.Fatalf("requeued %v (rebalancing %v), want the %d uneven sources", d.Requeued, d.Rebalancing, len(names))
	}
	e.work()
	for _, n := range names {
		if diff := cmp.Diff(want, e.zoneCounts(n)); diff != "" {
			t.Errorf("after recovery: %s by zone (-want +got):\n%s", n, diff)
		}
		if total := vsched.TotalVReplicas(e.placementsOf(n)); total != 3 {
			t.Errorf("%s holds %d vreplicas, want 3", n, total)
		}
	}
	// Even again: nothing more to requeue.
	if d := e.reconcile(); len(d.Requeued) != 0 {
		t.Errorf("once even, requeued %v", d.Requeued)
	}
}

// The rebalancing is bounded by the free room of the least-loaded zone: a
// source whose only way to even out is a full zone stays where it is, and
// is not requeued cycle after cycle.
func TestRebalanceWithoutRoomLeavesPlacements(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, profiles: profilesFromData(t, growthEvenZoneSpread, nil),
		config: func(c *config.AutoscalerConfig) { c.UnavailablePodGrace = time.Minute; c.MaxReplicas = 3 }})
	e.create("uneven", 4)
	zoneC := e.nodeOf(2)
	if err := e.c.FailNode(zoneC); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.step(2 * time.Minute)
	e.reconcile()
	e.work()
	if z := e.zoneCounts("uneven"); z["zone-c"] != 0 {
		t.Fatalf("zone c down: by zone %v", z)
	}
	before := e.placementsOf("uneven")
	if err := e.c.RecoverNode(zoneC); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.reconcile()
	e.sync()
	// Before the autoscaler looks again, another source takes all of zone
	// c's room (its status written as a controller would).
	k := e.key("fill-c")
	v, err := e.src.Create(k, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.src.CommitPlacements(k, v.GetResourceVersion(), []vsched.Placement{{PodName: vsched.PodName(e.c.StatefulSetName(), 2), VReplicas: 10}}); err != nil {
		t.Fatal(err)
	}
	if v, err := e.src.Get(k); err == nil {
		e.s.Observe(v)
	}
	for i := 0; i < 2; i++ {
		if d := e.reconcile(); len(d.Requeued) != 0 {
			t.Errorf("zone c is full, yet cycle %d requeued %v", i, d.Requeued)
		}
	}
	got := e.schedule(e.key("uneven"))
	if diff := cmp.Diff(before, got); diff != "" {
		t.Errorf("uneven moved although zone c has no room (-before +after):\n%s", diff)
	}
}

// A removal that leaves the source uneven is evened out in the same result:
// the descheduler profile here removes from the highest ordinals only, so
// shrinking a source packed on pods 0-2 (one per zone) empties zone c's pod
// first; EvenZoneSpread's rebalancing moves the excess back at once.
func TestShrinkRebalancesInTheSameResult(t *testing.T) {
	sched := map[string]string{
		"predicates": growthEvenZoneSpread["predicates"],
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	}
	desched := map[string]string{"priorities": `[{"Name": "RemoveWithHighestOrdinalPriority", "Weight": 1}]`}
	e := newEnv(t, envOpts{replicas: 6, profiles: profilesFromData(t, sched, desched)})
	e.create("s", 9)
	if diff := cmp.Diff(map[string]int32{"zone-a": 3, "zone-b": 3, "zone-c": 3}, e.zoneCounts("s")); diff != "" {
		t.Fatalf("setup by zone (-want +got):\n%s", diff)
	}
	// Highest ordinal first: 3 from pod 2 (zone c) and 1 from pod 1
	// (zone b) leave 3 2 0; one moves from pod 0 to pod 2.
	got := e.update("s", 5)
	want := placements(0, 2, 1, 2, 2, 1)
	if diff := cmp.Diff(counts(t, want), counts(t, got)); diff != "" {
		t.Errorf("after shrinking to 5 (-want +got):\n%s", diff)
	}
}
