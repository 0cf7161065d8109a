package autoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

// Issue 20, item 4: the moves off a lost node's pods (after the grace)
// are not throttled like compaction: one cycle requeues every source on
// them and each moves all its vreplicas off in one Schedule call, while
// max-moves-per-source and max-moves-per-cycle stay small.
func TestEvacuationOfALostNodeHasItsOwnBudget(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 6, capacity: 20, config: func(c *config.AutoscalerConfig) {
		c.UnavailablePodGrace = time.Minute
		c.MaxMovesPerSource = 1
		c.MaxMovesPerCycle = 2
		c.Compaction = false
		c.MinReplicas = 6 // no scale-down: only the evacuation moves
	}})
	for i := 0; i < 6; i++ {
		e.create(fmt.Sprintf("s%d", i), 6)
	}
	before := e.usedOn()
	lost := before[2] + before[5]
	if e.nodeOf(2) != e.nodeOf(5) || lost < 6 {
		t.Fatalf("setup: pods 2 and 5 on %s and %s hold %d (used %v)", e.nodeOf(2), e.nodeOf(5), lost, before)
	}
	if err := e.c.FailNode(e.nodeOf(2)); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.step(2 * time.Minute)
	if d := e.reconcile(); d.Unavailable != int64(lost) {
		t.Fatalf("the cycle counts %d unavailable vreplicas, want the %d on the lost pods", d.Unavailable, lost)
	}
	e.work()
	if got := e.usedOn(); got[2]+got[5] != 0 {
		t.Fatalf("after one cycle past the grace: used %v; want the %d vreplicas of the lost pods 2 and 5 all moved", got, lost)
	}
	for i := 0; i < 6; i++ {
		if n := vsched.TotalVReplicas(e.placementsOf(fmt.Sprintf("s%d", i))); n != 6 {
			t.Errorf("s%d holds %d, want 6", i, n)
		}
	}
	if d := e.reconcile(); d.Unavailable != 0 {
		t.Errorf("after the evacuation the cycle counts %d unavailable vreplicas, want 0", d.Unavailable)
	}
}
