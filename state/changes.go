package state

import (
	"slices"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"
)

// What changed since a caller last looked, so that a search over the
// sources (the descheduler's rebalance scan) can look again at those alone:
//
//   - the change log lists the sources whose placements, holdings or
//     vreplicas changed, in order (ChangeMark, ChangedSince);
//   - the room mark grows whenever a pod may have gained room (RoomMark).
//
// Copies share the log: entries are only ever appended, and a copy's slice
// ends where the log ended when it was taken, so the original appending
// later never writes what the copy reads. A copy that changes a source
// starts a log of its own (a new epoch): its positions past the shared part
// are not the original's, and a mark taken there must not read as one.

// ChangeMark is a position in the state's log of changed sources.
type ChangeMark struct {
	epoch uint64
	pos   int
}

// logSlack is how many entries the log may hold beyond twice the sources
// before it is dropped and starts again (a new epoch): a caller that has
// not looked for that long looks at every source instead.
const logSlack = 4096

// ChangeMark is where the log of changed sources ends now.
func (s *State) ChangeMark() ChangeMark { return ChangeMark{epoch: s.epoch, pos: len(s.changes)} }

// ChangedSince lists, sorted and each once, the sources whose placements,
// holdings (what they count against capacity) or vreplicas changed after
// mark was taken, forgotten ones included. It returns false when the log no
// longer reaches back to mark (it was restarted, or mark comes from another
// State): the caller must then treat every source as changed.
func (s *State) ChangedSince(mark ChangeMark) ([]types.NamespacedName, bool) {
	if mark.epoch != s.epoch || mark.pos > len(s.changes) {
		return nil, false
	}
	out := slices.Clone(s.changes[mark.pos:])
	SortKeys(out)
	return slices.Compact(out), true
}

// logChange records that the source changed.
func (s *State) logChange(key types.NamespacedName) {
	if s.logShared || len(s.changes) >= 2*len(s.sources)+logSlack {
		s.changes, s.epoch, s.logShared = nil, epochs.Add(1), false
	}
	s.changes = append(s.changes, key)
}

// epochs numbers the change logs of every State, so that a mark taken from
// one log never reads as a position in another.
var epochs atomic.Uint64

// RoomMark grows whenever some pod may have gained room: vreplicas left it,
// or the pods, nodes, size, capacity or drains changed. A search that found
// no room for a move need not look again while it stays the same.
func (s *State) RoomMark() uint64 { return s.roomSeq }

// invalidate records a change of pods, nodes, size, capacity or drains: the
// derived indexes are rebuilt on next use, and room may have appeared.
func (s *State) invalidate() {
	s.dirty = true
	s.roomSeq++
}

// gens numbers the owners of per-source records: a record whose gen is not
// its State's may be shared with a copy, and is copied before it changes
// (own). Clone gives both sides new numbers.
var gens atomic.Uint64

// own returns the source's record for writing, nil when unknown: a record
// the state may share with a copy is copied first.
func (s *State) own(key types.NamespacedName) *source {
	src := s.sources[key]
	if src == nil || src.gen == s.gen {
		return src
	}
	cp := *src
	cp.gen = s.gen
	s.sources[key] = &cp
	s.setSlot(&cp)
	return &cp
}

// setSlot records the source's record under its slot.
func (s *State) setSlot(src *source) {
	if n := int(src.slot) + 1; n > len(s.bySlot) {
		s.bySlot = append(s.bySlot, make([]*source, n-len(s.bySlot))...)
	}
	s.bySlot[src.slot] = src
}

// ownOrNew is own, creating the record when the source is unknown.
func (s *State) ownOrNew(key types.NamespacedName) *source {
	if src := s.own(key); src != nil {
		return src
	}
	src := &source{key: key, gen: s.gen, slot: s.slots}
	if n := len(s.freeSlots); n > 0 {
		src.slot, s.freeSlots = s.freeSlots[n-1], s.freeSlots[:n-1]
	} else {
		s.slots++
	}
	s.sources[key] = src
	s.setSlot(src)
	return src
}

// Slots bounds the sources' slots (SourceSummary.Slot): every one is below
// it.
func (s *State) Slots() int32 { return s.slots }

// NumSources is how many sources the state knows.
func (s *State) NumSources() int { return len(s.sources) }
