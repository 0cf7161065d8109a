package state

// SetReplicas records the StatefulSet's spec.replicas. While a shrink is
// fenced (Fence), Replicas stays at most the fence.
func (s *State) SetReplicas(n int32) {
	s.observed = clampReplicas(n)
	s.applyReplicas()
}

func clampReplicas(n int32) int32 { return max(0, min(n, MaxOrdinal+1)) }

func (s *State) applyReplicas() {
	n := s.observed
	if s.fenced {
		n = min(n, s.fence)
	}
	if n != s.replicas {
		s.replicas = n
		s.grow(n - 1)
		s.invalidate()
	}
	if n > s.highWater {
		s.highWater = n
		s.adoptStrays()
	}
}

// ObservedReplicas is spec.replicas as last recorded, whatever the fence.
func (s *State) ObservedReplicas() int32 { return s.observed }

// ObserveReplicas records spec.replicas from a StatefulSet event of
// resource version rv. A fenced shrink ends when the event confirms it: it
// shows at most the fenced size, or it is newer than the write (see
// newerRV). An older event, one the informer delivers late, leaves the
// fence in place, so the ordinals it removed never become candidates
// again. It reports whether the fence ended.
func (s *State) ObserveReplicas(n int32, rv string) bool {
	if s.StaleReplicas(rv) {
		return false
	}
	lifted := false
	if s.fenced && (clampReplicas(n) <= s.fence || newerRV(rv, s.fenceRV, s.fenceFromRV)) {
		s.fenced, lifted = false, true
	}
	s.observedRV = rv
	s.SetReplicas(n)
	return lifted
}

// StaleReplicas reports whether a StatefulSet event of resource version rv
// is older than the one the size was last taken from. The informer delivers
// in order, but a new term reads the StatefulSet from the API server, ahead
// of an informer that lags: the events it delivers late must not bring
// back the size they show.
func (s *State) StaleReplicas(rv string) bool { return olderRV(rv, s.observedRV) }
