package state

import (
	"sort"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// Held is vreplicas on one pod.
type Held struct {
	Ordinal   int32
	VReplicas int32
}

// EachSource calls fn for every known source, in no particular order, with
// the vreplicas it last asked for, its placements (the reservation if any,
// else the committed placements: what its next decision builds on), and
// what it holds by ordinal, valid ones only, in no particular order: what it
// counts against capacity, which while a reservation is outstanding is per
// pod the larger of the committed and the reserved count (a pod the
// decision leaves is held until the status shows it). fn must not modify
// the slices or the state, and must not keep held: it is reused for the
// next source.
func (s *State) EachSource(fn func(key types.NamespacedName, vreplicas int32, placements []vsched.Placement, held []Held)) {
	var buf []Held
	for k, src := range s.sources {
		ps := src.placements()
		buf = buf[:0]
		for _, e := range src.effective {
			buf = append(buf, Held{Ordinal: e.ord, VReplicas: e.n})
		}
		fn(k, src.vreplicas, ps, buf)
	}
}

// SourceSummary is one source as EachSourceSummary reports it.
type SourceSummary struct {
	// VReplicas and Placements are EachSource's vreplicas and
	// placements.
	VReplicas  int32
	Placements []vsched.Placement
	// Held sums what EachSource's held lists, and MaxOrdinal is its
	// highest ordinal, -1 when it holds nothing.
	Held, MaxOrdinal int32
	// Slot numbers the source among the state's, densely: no two sources
	// share one, and each is below Slots. A forgotten source's slot goes
	// to a source seen later.
	Slot int32
}

// EachSourceSummary is EachSource for a caller that needs only what each
// source holds in sum: it reads one record per source, not its holdings
// (HeldOn lists them for the sources that need them).
func (s *State) EachSourceSummary(fn func(key types.NamespacedName, sum SourceSummary)) {
	for k, src := range s.sources {
		fn(k, src.summary())
	}
}

// Summary is what EachSourceSummary says of the source, false when the
// source is unknown.
func (s *State) Summary(key types.NamespacedName) (SourceSummary, bool) {
	if src := s.sources[key]; src != nil {
		return src.summary(), true
	}
	return SourceSummary{}, false
}

// SummaryAt is Summary for a caller that remembers where the source was:
// when slot (a Slot an earlier Summary reported, perhaps of another clone)
// still holds the source, it hashes no key; otherwise it is Summary.
func (s *State) SummaryAt(key types.NamespacedName, slot int32) (SourceSummary, bool) {
	if slot >= 0 && int(slot) < len(s.bySlot) {
		if src := s.bySlot[slot]; src != nil && src.key == key {
			return src.summary(), true
		}
	}
	return s.Summary(key)
}

func (src *source) summary() SourceSummary {
	return SourceSummary{VReplicas: src.vreplicas, Placements: src.placements(), Held: src.held, MaxOrdinal: src.maxOrd, Slot: src.slot}
}

// HeldOn lists what the source holds by ordinal, as EachSource's held
// does, in a new slice; nil when the source is unknown.
func (s *State) HeldOn(key types.NamespacedName) []Held {
	src := s.sources[key]
	if src == nil {
		return nil
	}
	out := make([]Held, len(src.effective))
	for i, e := range src.effective {
		out[i] = Held{Ordinal: e.ord, VReplicas: e.n}
	}
	return out
}

// Holding is one source's vreplicas on one pod, as they count now.
type Holding struct {
	Ordinal   int32
	Source    types.NamespacedName
	VReplicas int32
}

// HoldingsOn lists what every source holds on the pods for which on returns
// true, ordered by ordinal (highest first), then by source.
func (s *State) HoldingsOn(on func(ordinal int32) bool) []Holding {
	var out []Holding
	for k, src := range s.sources {
		for _, e := range src.effective {
			if e.n > 0 && on(e.ord) {
				out = append(out, Holding{Ordinal: e.ord, Source: k, VReplicas: e.n})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Ordinal != out[j].Ordinal {
			return out[i].Ordinal > out[j].Ordinal
		}
		return KeyLess(out[i].Source, out[j].Source)
	})
	return out
}
