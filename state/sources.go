package state

import (
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// Outcome says what observing a source did to its reservation.
type Outcome int

const (
	// NoReservation: the source had no reservation; its committed
	// placements were recorded.
	NoReservation Outcome = iota
	// Waiting: the source is at the version the reservation was based on
	// (or older); the reservation still counts.
	Waiting
	// Committed: a newer version shows exactly the reserved placements.
	Committed
	// Overridden: a newer version shows other placements; the lister wins
	// and the reservation is dropped.
	Overridden
	// Stale: the version is older than one already seen; ignored.
	Stale
)

var outcomeNames = [...]string{"NoReservation", "Waiting", "Committed", "Overridden", "Stale"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// entries lists what placements count against the pods the state holds.
// It reports whether some placement named an ordinal above them: that one
// counts once the StatefulSet grows to it (grow recounts the source).
func (s *State) entries(ps []vsched.Placement) ([]entry, bool) {
	out := make([]entry, 0, len(ps))
	beyond := false
	for _, p := range ps {
		// OrdinalOf, not OrdinalFromPodName: a reservation's foreign
		// name must not take capacity from our pod with its ordinal.
		ord, ok := s.OrdinalOf(p.PodName)
		switch {
		case !ok || p.VReplicas <= 0:
		case !s.tracked(ord):
			beyond = true
		default:
			out = append(out, entry{ord: ord, n: p.VReplicas})
		}
	}
	return out, beyond
}

// recount recomputes what the source counts against capacity from its
// committed placements and its reservation. While a decision is not yet
// written, its source's adapters may still run the committed placements, so
// each pod counts the larger of the two: a decision that takes vreplicas off
// a pod frees that room only once its status shows it. Otherwise another
// source could be given the room while the old vreplicas still run there.
func (s *State) recount(src *source) {
	// The zone index moves each pod once, after its net change: taking
	// every entry off and putting it back would move most of them twice
	// for nothing.
	s.logChange(src.key)
	old, oldCost := src.effective, src.counted
	s.holdIndex = true
	touched := s.touchBuf[:0]
	for _, e := range src.effective {
		s.addUsed(e.ord, -e.n)
		touched = append(touched, e.ord)
	}
	wasBeyond := src.beyond
	src.effective, src.beyond = s.entries(src.committed)
	if src.reservation != nil {
		reserved := map[int32]int32{}
		var order []int32
		rs, beyond := s.entries(src.reservation.Placements)
		src.beyond = src.beyond || beyond
		for _, r := range rs {
			if _, seen := reserved[r.ord]; !seen {
				order = append(order, r.ord)
			}
			reserved[r.ord] += r.n
		}
		for i := range src.effective {
			e := &src.effective[i]
			if n, ok := reserved[e.ord]; ok {
				e.n = max(e.n, n)
				delete(reserved, e.ord)
			}
		}
		for _, ord := range order {
			if n, ok := reserved[ord]; ok {
				src.effective = append(src.effective, entry{ord: ord, n: n})
			}
		}
	}
	s.recountCost(src, old)
	src.held, src.maxOrd = 0, -1
	for _, e := range src.effective {
		s.addUsed(e.ord, e.n)
		touched = append(touched, e.ord)
		src.held += e.n
		src.maxOrd = max(src.maxOrd, e.ord)
	}
	s.holdIndex = false
	if !s.dirty {
		for _, ord := range touched {
			s.reindex(ord)
		}
	}
	s.touchBuf = touched
	s.tallyHeavy(src, oldCost, touched)
	if freed(old, src.effective) {
		s.roomSeq++
	}
	switch {
	case src.beyond && !wasBeyond:
		s.beyond++
	case !src.beyond && wasBeyond:
		s.beyond--
	}
}

// freed reports whether some pod holds less of a source under after than
// under before. Both are a source's few entries, one per pod.
func freed(before, after []entry) bool {
	if ascending(before) && ascending(after) {
		// Placements come sorted by ordinal: a merge, not a search per
		// entry, which for a source on thousands of pods (issue 21's
		// 10,000 vreplicas spread over pods) cost milliseconds a call.
		j := 0
		for _, b := range before {
			for j < len(after) && after[j].ord < b.ord {
				j++
			}
			n := int32(0)
			if j < len(after) && after[j].ord == b.ord {
				n = after[j].n
			}
			if n < b.n {
				return true
			}
		}
		return false
	}
	for _, b := range before {
		n := int32(0)
		for _, a := range after {
			if a.ord == b.ord {
				n = a.n
				break
			}
		}
		if n < b.n {
			return true
		}
	}
	return false
}

// ascending reports whether the entries' ordinals strictly increase.
func ascending(es []entry) bool {
	for i := 1; i < len(es); i++ {
		if es[i].ord <= es[i-1].ord {
			return false
		}
	}
	return true
}

// Observe records what a source's object shows now (from the lister, an
// informer event or a Schedule call) and resolves its reservation:
// a newer version with the reserved placements commits it, a newer version
// with other placements overrides it, and the same or an older version
// leaves it counting.
func (s *State) Observe(vpod vsched.VPod, now time.Time) Outcome {
	out, _ := s.ObserveWithProblems(vpod, now)
	return out
}

// ObserveWithProblems is Observe that also returns what Normalize repaired in
// the source's placements (nil for a Stale version, which is not read), so
// a caller can log it without normalizing a second time.
func (s *State) ObserveWithProblems(vpod vsched.VPod, now time.Time) (Outcome, []string) {
	key := vpod.GetKey()
	rv := vpod.GetResourceVersion()
	if s.deletedVersion(key, rv) {
		return Stale, nil
	}
	if src := s.sources[key]; src != nil && src.committedRV != "" && olderRV(rv, src.committedRV) {
		return Stale, nil
	}
	src := s.ownOrNew(key)
	if n, ok := parseRV(rv); ok {
		s.newestRV = max(s.newestRV, n)
	}
	s.seq++
	src.seen = s.seq
	committed, problems := s.Normalize(vpod.GetPlacements())
	src.committed, src.committedRV = committed, rv
	src.vreplicas = vpod.GetVReplicas()
	s.setCost(src, vsched.EffectiveVReplicaCost(vpod, s.opts.CostEstimates))
	out := NoReservation
	if r := src.reservation; r != nil {
		switch {
		case rv == r.BasedOn || olderRV(rv, r.BasedOn):
			out = Waiting
		case vsched.SamePlacements(committed, r.Placements):
			src.reservation, out = nil, Committed
		default:
			src.reservation, out = nil, Overridden
		}
	}
	s.recount(src)
	return out, problems
}

// Placements returns the source's placements as they count now: its
// reservation when it has one, else what its status showed last.
func (s *State) Placements(key types.NamespacedName) ([]vsched.Placement, bool) {
	src := s.sources[key]
	if src == nil {
		return nil, false
	}
	return src.placements(), true
}

// placements are the source's placements as they count now: its
// reservation when it has one, else what its status showed last.
func (src *source) placements() []vsched.Placement {
	if src.reservation != nil {
		return src.reservation.Placements
	}
	return src.committed
}

// Forget drops everything known of a source (it was deleted), freeing its
// capacity at once, and reports whether the source was known. Call it once
// the lister no longer shows the source. It leaves a tombstone: versions of
// the source not newer than the newest version the state has seen of any
// source are Stale, so a decision in flight, or an event delivered late,
// cannot bring it back. A newer version, or a Resync whose list was taken
// after Forget and shows the source, is a new object of the same name; the
// tombstone also ends when ExpireReservations finds it older than the TTL.
func (s *State) Forget(key types.NamespacedName, now time.Time) bool {
	if s.deleted == nil {
		s.deleted = map[types.NamespacedName]tombstone{}
	}
	s.seq++
	s.deleted[key] = tombstone{rv: s.newestRV, seq: s.seq, at: now}
	return s.drop(key)
}

// drop forgets a source without a tombstone: Resync's list is the truth.
func (s *State) drop(key types.NamespacedName) bool {
	src := s.own(key)
	if src == nil {
		return false
	}
	src.committed, src.reservation = nil, nil
	src.costList, src.cost = nil, nil
	s.recount(src)
	s.untallyHeavy(src)
	delete(s.sources, key)
	delete(s.pendingSet, key)
	s.freeSlots = append(s.freeSlots, src.slot)
	if int(src.slot) < len(s.bySlot) {
		s.bySlot[src.slot] = nil
	}
	return true
}

// Sources lists every known source, sorted.
func (s *State) Sources() []types.NamespacedName { return sortedKeys(s.sources) }

// SourcesOn lists, sorted, the sources with vreplicas counted on the pod.
func (s *State) SourcesOn(ord int32) []types.NamespacedName {
	var out []types.NamespacedName
	for k, src := range s.sources {
		for _, e := range src.effective {
			if e.ord == ord {
				out = append(out, k)
				break
			}
		}
	}
	SortKeys(out)
	return out
}

// TotalVReplicas is the sum of every known source's desired vreplicas.
func (s *State) TotalVReplicas() int64 {
	var n int64
	for _, src := range s.sources {
		n += int64(src.vreplicas)
	}
	return n
}

// Committed returns the source's placements as its status last showed them
// (normalized), whatever its reservation says.
func (s *State) Committed(key types.NamespacedName) ([]vsched.Placement, bool) {
	src := s.sources[key]
	if src == nil {
		return nil, false
	}
	return src.committed, true
}

// VReplicasOf is how many vreplicas the source last asked for (0 when
// unknown).
func (s *State) VReplicasOf(key types.NamespacedName) int32 {
	if src := s.sources[key]; src != nil {
		return src.vreplicas
	}
	return 0
}

// Knows reports whether the state holds anything about the source.
func (s *State) Knows(key types.NamespacedName) bool {
	_, ok := s.sources[key]
	return ok
}
