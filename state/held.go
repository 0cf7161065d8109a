package state

import "github.com/vsched/vsched"

// HeldReplicas is the size the StatefulSet needs for every placement the
// state holds, committed or reserved, to name one of its pods: the highest
// such ordinal plus one, 0 when none. Unlike HighestUsedOrdinal it counts
// the placements above the ordinals the state tracks (beyond): a scheduler
// that first saw the StatefulSet at 0 replicas tracks 64 ordinals, and a
// restore to less than what the sources hold would leave the rest above it.
// It walks only the sources that have such placements.
func (s *State) HeldReplicas() int32 {
	n := s.HighestUsedOrdinal() + 1
	if s.beyond == 0 {
		return n
	}
	for _, src := range s.sources {
		if !src.beyond {
			continue
		}
		n = max(n, s.namedReplicas(src.committed))
		if src.reservation != nil {
			n = max(n, s.namedReplicas(src.reservation.Placements))
		}
	}
	return n
}

// namedReplicas is the highest ordinal of the StatefulSet's pods that ps
// gives vreplicas, plus one.
func (s *State) namedReplicas(ps []vsched.Placement) int32 {
	n := int32(0)
	for _, p := range ps {
		if ord, ok := s.OrdinalOf(p.PodName); ok && p.VReplicas > 0 {
			n = max(n, ord+1)
		}
	}
	return n
}
