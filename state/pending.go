package state

import "k8s.io/apimachinery/pkg/types"

// SetPending records how many of the source's vreplicas could not be placed.
func (s *State) SetPending(key types.NamespacedName, n int32) {
	src := s.own(key)
	if src == nil {
		return
	}
	src.pending = n
	if n > 0 {
		s.pendingSet[key] = struct{}{}
	} else {
		delete(s.pendingSet, key)
	}
}

// PendingOf is the source's pending count.
func (s *State) PendingOf(key types.NamespacedName) int32 {
	if src := s.sources[key]; src != nil {
		return src.pending
	}
	return 0
}

// Pending returns every source with pending vreplicas and their sum. It
// costs what the pending sources are, however many sources are known.
func (s *State) Pending() (map[types.NamespacedName]int32, int64) {
	out := make(map[types.NamespacedName]int32, len(s.pendingSet))
	var total int64
	for k := range s.pendingSet {
		n := s.sources[k].pending
		out[k] = n
		total += int64(n)
	}
	return out, total
}

// PendingTotal is the sum Pending returns, without building its map.
func (s *State) PendingTotal() int64 {
	var total int64
	for k := range s.pendingSet {
		total += int64(s.sources[k].pending)
	}
	return total
}

// PendingKeys lists, sorted, the sources with pending vreplicas, at the
// cost of those alone.
func (s *State) PendingKeys() []types.NamespacedName { return sortedKeys(s.pendingSet) }
