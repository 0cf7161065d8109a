package statefulset

import (
	"math"
	"strings"
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// Statuses whose counts on one pod sum past MaxInt32 must leave the pod of
// capacity 10 full, not wrapped to free: a third source gets nothing there.
func TestScheduleAfterStatusesSummingPastMaxInt32(t *testing.T) {
	for _, other := range []int32{2, math.MaxInt32} {
		c := zones3(t, 1)
		c.store.put(&vsched.PlainVPod{Key: srcKey("a"), VReplicas: 1, Placements: placements(0, math.MaxInt32)})
		c.store.put(&vsched.PlainVPod{Key: srcKey("b"), VReplicas: 2, Placements: placements(0, other)})
		c.store.create("c", 5)
		s := c.start()
		ps, err := s.Schedule(quietCtx(), c.store.get("c"))
		if vsched.PendingCount(err) != 5 || len(ps) != 0 {
			t.Errorf("statuses {adapter-0: MaxInt32} and {adapter-0: %d}: Schedule(c) = [%s], %v; want nothing placed and 5 pending on a full pod",
				other, short(ps), err)
		}
	}
}

// A status listing one pod twice with MaxInt32 is repaired, not summed to a
// negative that fails every call.
func TestScheduleRepairsDuplicatedMaxInt32(t *testing.T) {
	c := zones3(t, 3)
	c.store.put(&vsched.PlainVPod{Key: srcKey("a"), VReplicas: 2, Placements: placements(0, math.MaxInt32, 0, math.MaxInt32)})
	s := c.start()
	ps, err := s.Schedule(quietCtx(), c.store.get("a"))
	if err != nil {
		t.Fatalf("Schedule(a): %v", err)
	}
	if got := vsched.TotalVReplicas64(ps); got != 2 {
		t.Errorf("Schedule(a) = [%s], %d in all; want 2", short(ps), got)
	}
}

func TestScheduleRejectsVReplicasAboveTheBound(t *testing.T) {
	c := zones3(t, 3)
	s := c.start(func(cfg *Config) { cfg.Capacity = vsched.MaxCapacity })
	for _, n := range []int32{vsched.MaxVReplicas + 1, math.MaxInt32} {
		c.store.create("big", n)
		ps, err := s.Schedule(quietCtx(), c.store.get("big"))
		if err == nil || !strings.Contains(err.Error(), "at most") || vsched.PendingCount(err) != 0 || ps != nil {
			t.Errorf("Schedule(%d vreplicas) = [%s], %v; want an error naming the bound", n, short(ps), err)
		}
	}
	c.store.create("max", vsched.MaxVReplicas)
	if ps, err := s.Schedule(quietCtx(), c.store.get("max")); err != nil || vsched.TotalVReplicas(ps) != vsched.MaxVReplicas {
		t.Errorf("Schedule(MaxVReplicas) = [%s], %v; want all placed", short(ps), err)
	}
}

func TestNewRejectsCapacityAboveTheBound(t *testing.T) {
	c := zones3(t, 1)
	for _, capacity := range []int32{vsched.MaxCapacity + 1, math.MaxInt32} {
		_, err := c.tryStart(quietCtx(), func(cfg *Config) { cfg.Capacity = capacity })
		if err == nil || !strings.Contains(err.Error(), "at most") {
			t.Errorf("New(Capacity %d) = %v; want an error naming the bound", capacity, err)
		}
	}
	s := c.start(func(cfg *Config) { cfg.Capacity = vsched.MaxCapacity })
	s.withState(func(st *state.State) {
		if st.Capacity() != vsched.MaxCapacity {
			t.Errorf("capacity %d, want %d", st.Capacity(), vsched.MaxCapacity)
		}
	})
}
