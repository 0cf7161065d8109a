package autoscaler

import (
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/descheduler"
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

// waitNotDraining waits until the scheduler's state shows the pods as not
// draining: a lifted annotation reaches it through its informer.
func (e *asEnv) waitNotDraining(ords ...int32) {
	e.t.Helper()
	if err := e.c.WaitFor(e.ctx, func() bool { return !e.draining(ords...) }); err != nil {
		e.t.Fatalf("pods %v still draining: %v", ords, err)
	}
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
	e.waitNotDraining(2, 5)
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
	// The cycle that lifts the drain finds "uneven" and requeues it; before
	// its controller gets to it, other sources take all of zone c's room,
	// each within the spread: 8 8 8, then one vreplica each in zone c (a
	// second would put it two ahead of the full zones, so it stays pending).
	if d := e.reconcile(); len(d.Rebalancing) != 1 {
		t.Fatalf("after recovery: rebalancing %v, want uneven", d.Rebalancing)
	}
	e.evicted.take()
	e.waitNotDraining(2)
	e.create("f1", 24)
	e.create("f2", 2)
	e.create("f3", 1)
	if got := e.usedOn(); got[0] != 10 || got[1] != 10 || got[2] != 10 {
		t.Fatalf("used = %v, want every pod full", got)
	}
	scans := e.a.rebalanceScans
	for i := 0; i < 3; i++ {
		if d := e.reconcile(); len(d.Rebalancing) != 0 {
			t.Errorf("zone c is full, yet cycle %d requeued %v", i, d.Rebalancing)
		}
	}
	// One scan finds nothing; the cluster's shape is unchanged after it.
	if n := e.a.rebalanceScans - scans; n != 1 {
		t.Errorf("%d scans in 3 cycles, want 1 (the one after a scan that found something)", n)
	}
	got := e.schedule(e.key("uneven"))
	if diff := cmp.Diff(before, got); diff != "" {
		t.Errorf("uneven moved although zone c has no room (-before +after):\n%s", diff)
	}
}

// BenchmarkRebalanceScan measures the full search for sources to
// rebalance (descheduler.RebalanceMoves) on W2 (6,000 pods, 10,000 sources)
// placed under EvenZoneSpread: every source is even, so the scan checks
// each one and requeues none. A cycle pays it only on a term's first cycle
// or when the profile or the cluster's shape changed; otherwise it looks at
// the sources that changed (descheduler.RebalanceScan,
// BenchmarkRebalanceScanCycle). Run with:
//
//	go test ./autoscaler -run '^$' -bench RebalanceScan -benchtime 20x
func BenchmarkRebalanceScan(b *testing.B) {
	ctx := quiet()
	profiles := profilesFromData(b, growthEvenZoneSpread, nil)
	w := newBenchWorld(b, ctx, profiles)
	// The scan runs on the cycle's copy of the state, as in a cycle; it
	// does not change it.
	base, err := w.s.CloneLoaded(ctx)
	if err != nil {
		b.Fatal(err)
	}
	place := profiles().Place
	runtime.GC()
	b.ResetTimer()
	var found int
	for i := 0; i < b.N; i++ {
		found = len(descheduler.RebalanceMoves(ctx, place, base, nil, nil, 100, 10))
	}
	b.StopTimer()
	if found != 0 {
		b.Fatalf("%d sources to rebalance after placing under EvenZoneSpread, want none", found)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/scan")
}
