package state

// Fence makes every ordinal at or above n a non-candidate at once, and
// Replicas at most n, before a shrink to n is written: no decision can then
// place anything on the pods it removes. It returns the fence in force
// before, for RestoreFence. A fence never rises while it lasts.
func (s *State) Fence(n int32) Fence {
	prev := Fence{fenced: s.fenced, at: s.fence, rv: s.fenceRV, fromRV: s.fenceFromRV}
	n = clampReplicas(n)
	if !s.fenced || n < s.fence {
		s.fence, s.fenceRV = n, ""
	}
	if !s.fenced {
		s.fenceFromRV = s.observedRV
	}
	s.fenced = true
	s.applyReplicas()
	return prev
}

// Fence is a fence as it was, to restore when the write it guarded failed.
type Fence struct {
	fenced     bool
	at         int32
	rv, fromRV string
}

// RestoreFence puts back the fence Fence returned: the shrink was not
// written, and the ordinals it fenced are candidates again.
func (s *State) RestoreFence(f Fence) {
	s.fenced, s.fence, s.fenceRV, s.fenceFromRV = f.fenced, f.at, f.rv, f.fromRV
	s.applyReplicas()
}

// FenceWritten records that the shrink to n was written at resource version
// rv: the size counts as observed at once, and the fence holds until an
// event confirms it (ObserveReplicas).
func (s *State) FenceWritten(n int32, rv string) {
	n = clampReplicas(n)
	if s.fenced && n == s.fence {
		s.fenceRV = rv
	}
	s.observed = min(s.observed, n)
	s.applyReplicas()
}

// Unfence ends the fence without an event: the caller has written a larger
// size since, which supersedes the shrink.
func (s *State) Unfence() {
	s.fenced = false
	s.applyReplicas()
}

// Fenced returns the size a shrink not yet confirmed fences the state at.
func (s *State) Fenced() (int32, bool) { return s.fence, s.fenced }
