package state

import "sort"

// Draining reports whether the pod is draining, by annotation or memory.
func (s *State) Draining(ord int32) bool {
	if ord < 0 || int(ord) >= len(s.pods) {
		return s.drainMemory[ord]
	}
	return s.pods[ord].draining || s.drainMemory[ord]
}

// SetDraining remembers (or forgets) that the scheduler marked the pod
// draining, independently of the pod object's annotation.
func (s *State) SetDraining(ord int32, draining bool) {
	if draining {
		if !s.tracked(ord) {
			// A stray pod is not the StatefulSet's to drain.
			return
		}
		s.drainMemory[ord] = true
	} else {
		delete(s.drainMemory, ord)
	}
	s.invalidate()
}

// MarkDraining is SetDraining(ord, true) that says whether it recorded
// anything: a stray ordinal (Tracks) is refused.
func (s *State) MarkDraining(ord int32) bool {
	if !s.tracked(ord) {
		return false
	}
	s.SetDraining(ord, true)
	return true
}

// UnmarkRemoved forgets the draining memory of every pod at or above from
// that does not exist: the StatefulSet was shrunk past it, and a pod
// created later with its ordinal starts fresh.
func (s *State) UnmarkRemoved(from int32) {
	for o := range s.drainMemory {
		if o >= from && !s.PodExists(o) {
			s.SetDraining(o, false)
		}
	}
}

// DrainingOrdinals lists, ascending, every pod marked draining.
func (s *State) DrainingOrdinals() []int32 {
	set := map[int32]bool{}
	for o := range s.drainMemory {
		set[o] = true
	}
	for i := range s.pods {
		if s.pods[i].draining {
			set[int32(i)] = true
		}
	}
	out := make([]int32, 0, len(set))
	for o := range set {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
