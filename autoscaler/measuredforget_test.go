package autoscaler

import (
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched"
)

// measureWith sets each pod's usage to what the named sources' vreplicas
// on it use at costs (Mi per vreplica).
func (e *asEnv) measureWith(costs map[string]int64) {
	use := map[int32]int64{}
	for name, cost := range costs {
		for _, p := range e.placementsOf(name) {
			if ord, ok := vsched.OrdinalOf(e.c.StatefulSetName(), p.PodName); ok {
				use[ord] += int64(p.VReplicas) * cost
			}
		}
	}
	for ord, mem := range use {
		e.c.SetPodUsage(ord, memory(mem))
	}
}

// TestMeasuredCostsForgetDeletedSources: b (500Mi a vreplica) is deleted
// and forgotten by the scheduler: its estimate goes at once and does not
// come back, and b created again with the same name at 100Mi a vreplica is
// estimated from its own rounds alone, not from the old b's.
func TestMeasuredCostsForgetDeletedSources(t *testing.T) {
	e, m := measuredEnv(t)
	cycles := func(n int, costs map[string]int64) {
		for range n {
			e.measureWith(costs)
			e.reconcile()
			e.step(30 * time.Second)
		}
	}
	cycles(20, trueCost)
	b := e.key("b")
	if m.EstimatedCost(b) == nil {
		t.Fatal("b has no estimate")
	}
	if err := e.src.Delete(b); err != nil {
		t.Fatal(err)
	}
	e.s.Forget(b)
	if got := m.EstimatedCost(b); got != nil {
		t.Errorf("b's estimate once b is forgotten: %v, want none", got)
	}
	without := map[string]int64{"a": 200, "c": 80, "d": 300, "e": 50}
	cycles(2, without)
	if got := m.EstimatedCost(b); got != nil {
		t.Errorf("b's estimate two cycles after b was forgotten: %v, want none", got)
	}

	e.s.Observe(e.src.Put(vsched.PlainVPod{Key: b, VReplicas: 3, Placements: []vsched.Placement{e.on(0, 1), e.on(2, 2)}, MeasureCost: true}))
	with := map[string]int64{"a": 200, "b": 100, "c": 80, "d": 300, "e": 50}
	cycles(3, with)
	q := m.EstimatedCost(b)[corev1.ResourceMemory]
	est := float64(q.Value()) / (1 << 20)
	t.Logf("b created again at 100Mi: estimated %.1fMi after 3 rounds", est)
	if math.Abs(est-100) > 5 {
		t.Errorf("b created again at 100Mi a vreplica: estimated %.1fMi after 3 rounds; want within 5Mi (the old b's 500Mi must not count)", est)
	}
}

// TestMeasuredCostsForgetSourcesAResyncDrops: b's delete is missed (no
// Forget); once a resync has dropped it from the scheduler's state, the
// next cycle forgets its estimate.
func TestMeasuredCostsForgetSourcesAResyncDrops(t *testing.T) {
	e, m := measuredEnv(t)
	for range 20 {
		e.measure()
		e.reconcile()
		e.step(30 * time.Second)
	}
	b := e.key("b")
	if err := e.src.Delete(b); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := e.s.Resync(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	st, err := e.s.CloneLoaded(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Placements(b); ok {
		t.Fatal("the resyncs did not drop b")
	}
	if m.EstimatedCost(b) == nil {
		t.Fatal("b's estimate went before a cycle: the test no longer tests the cycle")
	}
	e.measureWith(map[string]int64{"a": 200, "c": 80, "d": 300, "e": 50})
	e.reconcile()
	if got := m.EstimatedCost(b); got != nil {
		t.Errorf("b's estimate a cycle after a resync dropped b: %v, want none", got)
	}
}
