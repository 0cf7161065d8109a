package state

import "github.com/vsched/vsched"

// strayMargin is how far above the replicas the state keeps ordinals as
// the StatefulSet's even before its replicas reach them: a pod informer
// may run ahead of the StatefulSet's, and a scale-down leaves pods above
// the replicas for a while.
const strayMargin = 64

// tracked reports whether the ordinal is one the state keeps in pods: below
// the larger of twice the most replicas seen and strayMargin above them,
// and at most MaxOrdinal. Anything above is a stray.
func (s *State) tracked(ord int32) bool {
	limit := min(max(2*int64(s.highWater), int64(s.highWater)+strayMargin), MaxOrdinal+1)
	return ord >= 0 && int64(ord) < limit
}

// Tracks reports whether the ordinal is one the state keeps as the
// StatefulSet's. A pod above is a stray: it is never a candidate, never
// draining, and placements on it take no capacity, until the StatefulSet
// grows near it.
func (s *State) Tracks(ord int32) bool { return s.tracked(ord) }

// adoptStrays takes in the strays the replicas now reach, and counts the
// placements on ordinals they reach.
func (s *State) adoptStrays() {
	for ord := range s.strays {
		if s.tracked(ord) {
			s.grow(ord)
		}
	}
	if s.beyond > 0 {
		for k, src := range s.sources {
			if src.beyond {
				s.recount(s.own(k))
			}
		}
	}
}

// grow extends the pods to ord, taking in the strays it reaches.
func (s *State) grow(ord int32) {
	for int32(len(s.pods)) <= ord {
		o := int32(len(s.pods))
		p, ok := s.strays[o]
		if ok {
			delete(s.strays, o)
			s.invalidate()
		} else {
			p = podState{node: -1}
		}
		if int(o) >= len(s.names) {
			s.names = append(s.names, vsched.PodName(s.opts.StatefulSetName, o))
		}
		s.pods = append(s.pods, p)
	}
}
