package autoscaler

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

// Issue 20, item 3: a pod below the size that no node takes counts as a
// starting pod, with room, only for the unavailable-pod grace. After it,
// the autoscaler reports the vreplicas that wait for it and grows, and
// the source gets its vreplicas placed on the new pod.
func TestUnboundPodStopsCountingAsRoomAfterGrace(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, capacity: 10, config: func(c *config.AutoscalerConfig) {
		c.UnavailablePodGrace = time.Minute
	}})
	if err := e.c.UnbindPod(2); err != nil {
		t.Fatal(err)
	}
	e.sync()
	since := e.clk.Now()
	e.create("s", 25)
	if got := e.pending(); got != 5 {
		t.Fatalf("pending = %d with adapter-2 unbound, want 5", got)
	}
	v, err := e.src.Get(e.key("s"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.s.Schedule(e.ctx, v)
	var pe *vsched.PendingError
	if want := "adapter-2 since " + since.UTC().Format(time.RFC3339); !errors.As(err, &pe) || !strings.Contains(pe.Reason, want) {
		t.Fatalf("Schedule: %v; want a pending reason naming %q", err, want)
	}
	if d := e.reconcile(); d.Target != 3 || d.Unplaced != 0 {
		t.Fatalf("within the grace: target %d, unplaced %d (%s); want 3 and 0 (adapter-2 is starting)", d.Target, d.Unplaced, d.Reason)
	}
	e.step(2 * time.Minute)
	d := e.reconcile()
	// 6: the default profile spreads over the 3 zones, and the size
	// is rounded to them.
	if d.Target != 6 || d.Unplaced != 5 {
		t.Fatalf("after the grace: target %d, unplaced %d (%s); want 6 and the 5 vreplicas that wait for adapter-2", d.Target, d.Unplaced, d.Reason)
	}
	if diff := cmp.Diff([]UnboundPod{{Pod: "adapter-2", Since: since}}, d.UnboundPods); diff != "" {
		t.Errorf("UnboundPods (-want +got):\n%s", diff)
	}
	if evs := e.events(); countPrefix(evs, "Warning PodUnbound pod adapter-2") != 1 {
		t.Errorf("events %q: want one PodUnbound Warning for adapter-2", evs)
	}
	e.settle()
	e.schedule(e.key("s"))
	e.work()
	if got, ps := e.pending(), e.placementsOf("s"); got != 0 || vsched.TotalVReplicas(ps) != 25 {
		t.Fatalf("after growing: pending %d, placements [%s]; want 0 and 25 placed", got, short(ps))
	}
}
