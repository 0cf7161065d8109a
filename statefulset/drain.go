package statefulset

// The scheduler's side of the drain protocol (package evictor): the
// Drainer annotates pods and records each mark here at once, so a decision
// stops placing on a pod before the informer shows the annotation, and a
// pod recreated without it stays draining. *Scheduler implements
// evictor.DrainMemory; these methods are the only way other packages change
// the scheduler's state.

// Tracks reports, for each ordinal, whether it is one of the StatefulSet's
// pods, rather than a stray far above its replicas that vsched does not
// drain. It takes the state lock once for all of them.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) Tracks(ords []int32) []bool {
	out := make([]bool, len(ords))
	s.st.Lock()
	defer s.st.Unlock()
	for i, o := range ords {
		out[i] = s.st.Tracks(o)
	}
	return out
}

// MarkDraining remembers that the pod is draining, whatever its annotation
// says. It records nothing and returns false for a stray ordinal.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) MarkDraining(ord int32) bool {
	s.st.Lock()
	defer s.st.Unlock()
	return s.st.MarkDraining(ord)
}

// UnmarkDraining forgets what MarkDraining remembered of the pods; a pod
// still annotated stays draining.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) UnmarkDraining(ords ...int32) {
	s.st.Lock()
	defer s.st.Unlock()
	for _, o := range ords {
		s.st.SetDraining(o, false)
	}
	s.drains.unmark(s.key.Name, ords)
}

// UnmarkRemoved forgets the draining memory, from any leadership term, of
// every pod at or above from that no longer exists (state.State.UnmarkRemoved).
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) UnmarkRemoved(from int32) {
	s.st.Lock()
	defer s.st.Unlock()
	s.st.UnmarkRemoved(from)
}

// drainMoveLimit is Config.DrainMoveLimit's bound, 0 for none.
func (s *Scheduler) drainMoveLimit() int32 {
	if s.cfg.DrainMoveLimit == nil {
		return 0
	}
	return max(s.cfg.DrainMoveLimit(), 0)
}
