package statefulset

import (
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

func TestPendingReturnsPartialPlacements(t *testing.T) {
	rec := &recorder{}
	c := zones3(t, 3)
	s := rec.start(c, func(cfg *Config) { cfg.Capacity = 2 })
	c.store.create("a", 8)

	for call := 1; call <= 2; call++ {
		ps, err := s.Schedule(quietCtx(), c.store.get("a"))
		if !errors.Is(err, vsched.ErrNotEnoughReplicas) {
			t.Fatalf("call %d: err = %v, want ErrNotEnoughReplicas", call, err)
		}
		var pe *vsched.PendingError
		if !errors.As(err, &pe) || pe.Pending != 2 || pe.Key != srcKey("a") {
			t.Fatalf("call %d: err = %#v, want a *PendingError for a with 2 pending", call, err)
		}
		if pe.Reason == "" {
			t.Errorf("call %d: PendingError without a reason", call)
		}
		// The 6 slots there are, all returned and valid to store.
		wantPlacements(t, ps, 0, 2, 1, 2, 2, 2)
		if got := rec.pendingCalls(); got != call {
			t.Fatalf("the pending hook called %d times after %d pending calls", got, call)
		}
		var n int32
		s.withState(func(st *state.State) { n = st.PendingOf(srcKey("a")) })
		if n != 2 {
			t.Fatalf("state records %d pending, want 2", n)
		}
		c.store.writeStatus("a", ps)
	}

	// Fully placed once the source shrinks: no error, the pending hook not called.
	c.store.scale("a", 6)
	scheduleOK(t, s, c, "a")
	if got := rec.pendingCalls(); got != 2 {
		t.Fatalf("the pending hook called after a call that left nothing pending")
	}
}

// waitRequeued waits until the recorder saw key requeued; informer
// handlers requeue from their own goroutines, after the state changed.
func waitRequeued(t *testing.T, rec *recorder, key types.NamespacedName, why string) {
	t.Helper()
	deadline := time.Now().Add(syncTimeout)
	var seen []types.NamespacedName
	for time.Now().Before(deadline) {
		seen = append(seen, rec.take()...)
		if contains(seen, key) {
			return
		}
		time.Sleep(200 * time.Microsecond)
	}
	t.Fatalf("%s: %v not requeued (requeued: %v)", why, key, seen)
}

func TestRequeuePendingSources(t *testing.T) {
	rec := &recorder{}
	c := zones3(t, 3)
	s := rec.start(c, func(cfg *Config) { cfg.Capacity = 2 })
	a := srcKey("a")

	// b and c take 4 of the 6 slots, a gets the last 2 and is pending.
	c.store.create("b", 2)
	c.store.create("c", 2)
	scheduleOK(t, s, c, "b")
	scheduleOK(t, s, c, "c")
	c.store.create("a", 12)
	scheduleA := func(wantPending int32) {
		t.Helper()
		ps, err := s.Schedule(quietCtx(), c.store.get("a"))
		if got := vsched.PendingCount(err); got != wantPending {
			t.Fatalf("a pending %d (err %v), want %d", got, err, wantPending)
		}
		c.store.writeStatus("a", ps)
	}
	scheduleA(10)
	rec.take()

	t.Run("source shrinks", func(t *testing.T) {
		c.store.scale("b", 0)
		scheduleOK(t, s, c, "b")
		// b's adapter runs its 2 vreplicas until b's status shows the
		// shrink: nothing is freed yet, and a is not requeued (this call
		// saw b's first decision written, but that took nothing off any
		// pod).
		if got := rec.take(); contains(got, a) {
			t.Fatalf("after b's shrink was decided but not seen written, requeued %v; want no a", got)
		}
		scheduleA(10)
		// The controller schedules b again once its status is written:
		// the commit frees the room, and requeue runs as Schedule
		// returns, not later.
		scheduleOK(t, s, c, "b")
		if got := rec.take(); !contains(got, a) || contains(got, srcKey("b")) {
			t.Fatalf("after b's shrink was written, requeued %v; want a (pending) and not b", got)
		}
		scheduleA(8)
	})

	t.Run("source forgotten", func(t *testing.T) {
		c.store.remove("c")
		s.Forget(srcKey("c"))
		if got := rec.take(); !contains(got, a) {
			t.Fatalf("after c was forgotten, requeued %v; want a", got)
		}
		scheduleA(6)
	})

	t.Run("node uncordoned", func(t *testing.T) {
		c.cordon("node-a", true)
		rec.take()
		c.cordon("node-a", false)
		waitRequeued(t, rec, a, "node-a uncordoned")
	})

	t.Run("new pod becomes a candidate", func(t *testing.T) {
		// Growing replicas may already requeue (capacity may follow);
		// what matters is the requeue when the pod can take vreplicas.
		c.scale(4)
		c.addPod(3, "") // exists, but unbound: not a candidate yet
		rec.take()
		c.bind(3, "node-a")
		waitRequeued(t, rec, a, "adapter-3 bound")
		scheduleA(4)
	})

	t.Run("StatefulSet scaled up", func(t *testing.T) {
		c.addPod(4, "node-b") // beyond replicas: not a candidate
		rec.take()
		c.scale(5)
		waitRequeued(t, rec, a, "replicas raised to 5")
		scheduleA(2)
	})
}

// A decision that frees room (here a shrink) frees it when it is seen
// written, however the scheduler sees it: the pending source is requeued
// then, and can take the room.
func TestRequeueWhenShrinkIsWritten(t *testing.T) {
	for _, tc := range []struct {
		name string
		// see makes the scheduler see b's status, which the test wrote.
		see func(t *testing.T, s *Scheduler, c *kubeCluster)
	}{
		{"Schedule", func(t *testing.T, s *Scheduler, c *kubeCluster) { scheduleOK(t, s, c, "b") }},
		{"Observe", func(t *testing.T, s *Scheduler, c *kubeCluster) { s.Observe(c.store.get("b")) }},
		{"Resync", func(t *testing.T, s *Scheduler, c *kubeCluster) {
			if err := s.Resync(quietCtx()); err != nil {
				t.Fatal(err)
			}
		}},
		{"Observe, overridden", func(t *testing.T, s *Scheduler, c *kubeCluster) {
			// Another writer shrank b further than the scheduler did.
			s.Observe(c.store.writeStatus("b", placements(0, 1)))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			c := zones3(t, 3)
			s := rec.start(c, func(cfg *Config) { cfg.Capacity = 2; cfg.Profiles = lowestOrdinal(t) })
			c.store.create("b", 6)
			wantPlacements(t, scheduleOK(t, s, c, "b"), 0, 2, 1, 2, 2, 2)
			s.Observe(c.store.get("b"))
			c.store.create("a", 2)
			if _, err := s.Schedule(quietCtx(), c.store.get("a")); vsched.PendingCount(err) != 2 {
				t.Fatalf("a: err = %v, want 2 pending", err)
			}

			c.store.scale("b", 3)
			wantPlacements(t, scheduleOK(t, s, c, "b"), 0, 1, 1, 1, 2, 1)
			if got := rec.take(); contains(got, srcKey("a")) {
				t.Fatalf("requeued %v before b's shrink was seen written", got)
			}
			if _, err := s.Schedule(quietCtx(), c.store.get("a")); vsched.PendingCount(err) != 2 {
				t.Fatalf("a before b's shrink is written: err = %v, want 2 pending", err)
			}
			if u := used(s); !sameCounts(u, map[int32]int32{0: 2, 1: 2, 2: 2}) {
				t.Fatalf("before b's shrink is written: used = %v, want 2 on every pod", u)
			}

			tc.see(t, s, c)
			if _, ok := reservation(s, "b"); ok {
				t.Fatal("b's reservation survived its status")
			}
			if got := rec.take(); !contains(got, srcKey("a")) || contains(got, srcKey("b")) {
				t.Fatalf("after b's shrink was seen written, requeued %v; want a and not b", got)
			}
			ps, err := s.Schedule(quietCtx(), c.store.get("a"))
			if err != nil || vsched.TotalVReplicas(ps) != 2 {
				t.Fatalf("a after b's shrink is written = %v, %v; want 2 placed", ps, err)
			}
		})
	}
}
