package autoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/evictor"
)

func TestAutoscalerUnavailablePodDrainedAfterGrace(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, config: func(c *config.AutoscalerConfig) { c.UnavailablePodGrace = 5 * time.Minute }})
	for i := 0; i < 3; i++ {
		e.create(fmt.Sprintf("s%d", i), 3) // one per pod, by zone spread
	}
	if got := e.usedOn(); got[2] != 3 {
		t.Fatalf("setup: used = %v", got)
	}
	node := e.nodeOf(2)
	if err := e.c.FailNode(node); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.step(4 * time.Minute)
	if d := e.reconcile(); len(d.Draining) != 0 || len(d.Requeued) != 0 {
		t.Fatalf("within the grace: %+v", d)
	}
	e.step(2 * time.Minute)
	d := e.reconcile()
	if d.Draining[2] != evictor.ReasonUnavailable || len(d.Requeued) != 3 {
		t.Fatalf("after the grace: %+v", d)
	}
	if evs := e.events(); countPrefix(evs, "Warning PodDraining") != 1 {
		t.Fatalf("events = %q", evs)
	}
	e.work()
	if got := e.usedOn(); got[2] != 0 || got[0]+got[1] != 9 {
		t.Fatalf("after the move: used = %v", got)
	}
	for i := 0; i < 3; i++ {
		if total := vsched.TotalVReplicas(e.placementsOf(fmt.Sprintf("s%d", i))); total != 3 {
			t.Fatalf("s%d holds %d", i, total)
		}
	}
	// The node comes back: the drain is lifted.
	if err := e.c.RecoverNode(node); err != nil {
		t.Fatal(err)
	}
	e.sync()
	d = e.reconcile()
	if len(d.Draining) != 0 {
		t.Fatalf("after recovery: %+v", d)
	}
	if err := e.c.WaitFor(e.ctx, func() bool { return e.podAnnotation(2) == "" }); err != nil {
		t.Fatal("annotation not removed")
	}
}

func TestAutoscalerUnavailablePodScalesUpWhenNoRoom(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) { c.UnavailablePodGrace = time.Minute }})
	e.create("full", 30)
	if err := e.c.FailNode(e.nodeOf(2)); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.step(2 * time.Minute)
	d := e.reconcile()
	if d.Action != ActionScaleUp || d.Target != 4 || d.Draining[2] != evictor.ReasonUnavailable {
		t.Fatalf("decision = %+v, want a pod for the 10 vreplicas of the lost one", d)
	}
	e.settle()
	e.work()
	if got := e.usedOn(); got[2] != 0 || got[3] != 10 {
		t.Fatalf("used = %v", got)
	}
}

func TestAutoscalerOverCapacityExcessDrained(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2, profiles: packProfiles(t)})
	e.create("a", 6)
	e.create("b", 4) // pod 0 full: a 6, b 4
	// The controller restarts with a lower capacity.
	e.restart(7)
	d := e.reconcile()
	if d.Draining[0] != evictor.ReasonOverCapacity || len(d.Requeued) != 1 || d.Requeued[0] != e.key("b") {
		t.Fatalf("decision = %+v, want pod 0 draining and only b (the smallest covering the excess of 3) requeued", d)
	}
	e.work()
	if got := e.usedOn(); got[0] != 6 || got[1] != 4 {
		t.Fatalf("used = %v", got)
	}
	d = e.reconcile()
	if len(d.Draining) != 0 {
		t.Fatalf("drain not lifted: %+v", d)
	}
}

func TestAutoscalerDrainedEmptyPodsDoNotBlockScaleDown(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 5, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
	}})
	e.create("a", 15) // pods 0 (10) and 1 (5)
	// An operator drained pods 3 and 4 (empty), and pod 1, which holds 5
	// vreplicas that pod 2 has room for.
	for _, ord := range []int32{1, 3, 4} {
		if err := e.c.SetDraining(ord, true); err != nil {
			t.Fatal(err)
		}
	}
	e.sync()
	d := e.reconcile()
	if !d.Written || d.Target != 3 {
		t.Fatalf("decision = %+v, want the empty drained pods removed", d)
	}
	// Pod 1's drain is the operator's: the autoscaler never lifts it.
	e.settle()
	e.reconcile()
	if got := e.podAnnotation(1); got != "true" {
		t.Fatalf("pod 1 annotation = %q", got)
	}
}
