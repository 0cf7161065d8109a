package statefulset_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// Issue 23: TestInvariantUnderLag (seed 7 of a -race soak, "size: src-01
// holds 1 on adapter-8, at or beyond spec.replicas 8") found a source's
// status written from a decision the scheduler then replaced. A controller
// wrote Schedule's answer for version V (V' holds it) and read V again from
// a lagging cache; meanwhile compaction drained the pod the answer named,
// and Schedule, deciding again from V's reservation, moved the vreplica
// off it. Of two writes based on V only one can land, and the first had:
// the second answer could never be written, yet it replaced the first in
// the state, which stopped counting the pod V' holds, and the autoscaler
// shrank past it. A decision made again from the same version must keep
// every vreplica its reservation holds on a pod that still exists.
func TestRedecisionKeepsWhatAnUnseenWriteHolds(t *testing.T) {
	rw := newRestoreWindow(t, 3, map[string]int32{"kafka": 8, "redis": 4})
	if err := rw.c.ScaleTo(4); err != nil {
		t.Fatal(err)
	}
	rw.sync(t)
	late := types.NamespacedName{Namespace: "ns", Name: "late"}
	v, err := rw.src.Create(late, 2)
	if err != nil {
		t.Fatal(err)
	}
	first, err := rw.sched.Schedule(rw.ctx, v)
	if err != nil || placed(first) != "adapter-3:2" {
		t.Fatalf("Schedule(late) with adapter-0..2 full = [%s], %v; want adapter-3:2", placed(first), err)
	}
	// Written; the scheduler is not told (its informer lags).
	if err := rw.src.CommitPlacements(late, v.GetResourceVersion(), first); err != nil {
		t.Fatal(err)
	}
	// Room on the pods below, and adapter-3 drained to compact.
	redis := rw.keys[1]
	if _, err := rw.src.Update(redis, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := rw.src.Reconcile(rw.ctx, rw.sched, redis); err != nil {
		t.Fatal(err)
	}
	written, err := rw.src.Get(redis)
	if err != nil {
		t.Fatal(err)
	}
	rw.sched.Observe(written) // the room counts once the write is seen
	if !rw.sched.MarkDraining(3) {
		t.Fatal("MarkDraining(3) = false")
	}
	// The controller's cache still shows V.
	again, err := rw.sched.Schedule(rw.ctx, v)
	if err != nil {
		t.Fatalf("Schedule(late) again from the same version: %v", err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("Schedule(late) again from the same version moved what its first answer, written, holds (-first +again):\n%s", diff)
	}
	if err := rw.src.CommitPlacements(late, v.GetResourceVersion(), again); err == nil {
		t.Fatal("a second write based on the same version landed")
	}
	committed := rw.committed(t, late)
	to, why, prev := rw.sched.FenceShrink(4, 3)
	rw.sched.EndShrink(prev, 4, "", errNoWrite)
	if to != 4 || why == "" {
		t.Errorf("FenceShrink(4, 3) = %d (%q) while late's status holds [%s]; want 4: adapter-3 holds vreplicas", to, why, placed(committed))
	}
}

// errNoWrite ends a fence no size write followed.
var errNoWrite = vsched.ErrNotReady
