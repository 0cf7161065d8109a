package statefulset

import (
	"testing"

	"github.com/vsched/vsched/evictor"
)

var _ evictor.DrainMemory = &Scheduler{}

// The drain protocol's methods change the scheduler's drain memory and
// nothing else; a snapshot taken before is a copy that does not follow.
func TestDrainMemoryAndSnapshot(t *testing.T) {
	c := zones3(t, 3)
	s := c.start()
	c.store.create("a", 3)
	scheduleOK(t, s, c, "a")

	before := s.Snapshot()
	if !s.MarkDraining(1) {
		t.Fatal("MarkDraining(1) refused a pod of the StatefulSet")
	}
	if s.MarkDraining(65535) || s.Tracks([]int32{65535})[0] {
		t.Fatal("a stray ordinal was tracked or marked")
	}
	if before.Draining(1) || !s.Snapshot().Draining(1) {
		t.Fatalf("draining before %v, after %v; want false, true", before.Draining(1), s.Snapshot().Draining(1))
	}
	if got := before.Used(0) + before.Used(1) + before.Used(2); got != 3 {
		t.Fatalf("snapshot counts %d vreplicas, want 3", got)
	}
	s.UnmarkDraining(1)
	if s.Snapshot().Draining(1) {
		t.Fatal("pod 1 still draining after UnmarkDraining")
	}
	// Memory of an ordinal whose pod does not exist goes with
	// UnmarkRemoved; that of an existing pod stays.
	s.MarkDraining(2)
	s.MarkDraining(5)
	s.UnmarkRemoved(2)
	if got := s.Snapshot().DrainingOrdinals(); len(got) != 1 || got[0] != 2 {
		t.Fatalf("draining after UnmarkRemoved(2) = %v, want [2]", got)
	}
}
