package statefulset

import (
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/pkg/reconciler"
)

// Promote implements reconciler.LeaderAware. The scheduler leads while it
// holds any bucket that owns the StatefulSet's key; on becoming leader it
// reloads every source's committed placements before its first decision.
//
// The leader flag changes under bucketsMu, together with the bucket set, so
// a Demote racing a Promote of another bucket cannot clear the flag after
// the Promote set it.
func (s *Scheduler) Promote(b reconciler.Bucket, _ func(reconciler.Bucket, types.NamespacedName)) error {
	if !b.Has(s.key) {
		return nil
	}
	s.bucketsMu.Lock()
	defer s.bucketsMu.Unlock()
	s.buckets[b.Name()] = true
	if !s.leader.Swap(true) {
		s.loaded.Store(false)
		s.endTermRead(nil) // a read from an earlier term is not this one's
	}
	return nil
}

// Demote implements reconciler.LeaderAware. It goes by the buckets this
// scheduler was promoted for, not by asking the bucket again: ownership can
// move between buckets (hash.BucketSet.Update), and a bucket that owned the
// StatefulSet when promoted must still release it when demoted.
func (s *Scheduler) Demote(b reconciler.Bucket) {
	s.bucketsMu.Lock()
	defer s.bucketsMu.Unlock()
	if !s.buckets[b.Name()] {
		return
	}
	delete(s.buckets, b.Name())
	if len(s.buckets) == 0 && !s.cfg.AlwaysLeader {
		s.leader.Store(false)
		s.loaded.Store(false)
		s.endTermRead(nil)
		// The term's unwritten decisions end with it: the next leader
		// may give their room away, and this replica reloads from the
		// sources if it leads again.
		s.st.Lock()
		s.st.DropReservations()
		s.st.Unlock()
	}
}

// IsLeader reports whether this replica currently schedules.
func (s *Scheduler) IsLeader() bool { return s.leader.Load() }

// HasSynced reports whether the scheduler's informer handlers have seen the
// initial list of pods, nodes and the StatefulSet. Until then Schedule
// returns an error wrapping vsched.ErrNotReady.
func (s *Scheduler) HasSynced() bool { return s.hasSynced() }

func (s *Scheduler) hasSynced() bool {
	for _, f := range s.synced {
		if !f() {
			return false
		}
	}
	return true
}

// NotReady says which view is not complete yet, "" when every one is: the
// pods, nodes and StatefulSet through the scheduler's handlers, and the
// sources through ListerSynced.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) NotReady() string {
	switch {
	case !s.hasSynced():
		return "informers have not synced"
	case s.StatefulSetMissing() != "":
		return s.StatefulSetMissing()
	case !s.cfg.ListerSynced():
		return "the sources' lister has not synced"
	}
	return ""
}
