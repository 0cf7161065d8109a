package state

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/internal/bounded"
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

// Normalize turns placements into the canonical form the state counts: one
// entry per pod of this StatefulSet, positive counts only, sorted by
// ordinal, and at most vsched.MaxVReplicas in all. Problems (a pod listed
// twice, a negative count, a name that is not "<statefulset>-<ordinal>", a
// total above the bound) are returned as messages naming the entry, at most
// bounded.Problems of them and then how many more; the duplicates are
// summed, what passes the bound is cut (highest ordinals first) and the rest
// dropped, so the caller can re-place what was dropped instead of panicking,
// wrapping a count or losing track of it.
func (s *State) Normalize(ps []vsched.Placement) ([]vsched.Placement, []string) {
	var problems bounded.List
	byOrd := make(map[int32]int, min(len(ps), vsched.MaxReplicas))
	list := make([]summed, 0, min(len(ps), vsched.MaxReplicas))
	for i, p := range ps {
		name := bounded.Cut(p.PodName, bounded.ValueLen)
		if p.VReplicas < 0 {
			problems.Add(fmt.Sprintf("placements[%d] (pod %q): negative vreplicas %d dropped", i, name, p.VReplicas))
			continue
		}
		if p.VReplicas == 0 {
			continue
		}
		ord, ok := s.OrdinalOf(p.PodName)
		if !ok {
			problems.Add(fmt.Sprintf("placements[%d]: pod %q is not a pod of StatefulSet %q; its %d vreplica(s) will be placed again", i, name, s.opts.StatefulSetName, p.VReplicas))
			continue
		}
		if j, dup := byOrd[ord]; dup {
			problems.Add(fmt.Sprintf("placements[%d]: pod %q listed twice; counts summed", i, name))
			list[j].n += int64(p.VReplicas)
			continue
		}
		byOrd[ord] = len(list)
		list = append(list, summed{p: p, ord: ord, n: int64(p.VReplicas)})
	}
	sort.Slice(list, func(a, b int) bool { return list[a].ord < list[b].ord })
	out, total, cut := capTotal(list)
	if cut > 0 {
		problems.Add(fmt.Sprintf("placements: %d vreplica(s) in all, more than the most a source may hold (%d); the %d beyond it, on the highest ordinals, are not counted",
			total+cut, vsched.MaxVReplicas, cut))
	}
	return out, problems.Items()
}

// summed is one pod's placement while Normalize sums it. The sum is an
// int64: a status is input, and two counts near MaxInt32 on one pod must
// not wrap to a negative.
type summed struct {
	p   vsched.Placement
	ord int32
	n   int64
}

// capTotal returns the placements of list, in its order, holding at most
// vsched.MaxVReplicas in all, with the total kept and how many were cut.
func capTotal(list []summed) (out []vsched.Placement, total, cut int64) {
	out = make([]vsched.Placement, 0, len(list))
	for _, e := range list {
		n := min(e.n, vsched.MaxVReplicas-total)
		cut += e.n - n
		if n <= 0 {
			continue
		}
		total += n
		p := e.p
		p.VReplicas = int32(n)
		out = append(out, p)
	}
	return out, total, cut
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
	old := src.effective
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

// olderRV reports whether resource version a is known to be older than b.
// Kubernetes resource versions are opaque, but every API server in use
// issues increasing integers; when both parse, the comparison protects a
// reservation from a lagging lister. Otherwise only equality is known.
func olderRV(a, b string) bool {
	x, ok1 := parseRV(a)
	y, ok2 := parseRV(b)
	return ok1 && ok2 && x < y
}

// tombstone remembers a forgotten source: rv is the newest version the state
// had seen of any source when it was forgotten (0: none), seq the State's
// seq then, at the time.
type tombstone struct {
	rv  uint64
	seq uint64
	at  time.Time
}

func parseRV(rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}

// deletedVersion reports whether rv is a version of a source forgotten
// since (a read from before its deletion). A newer version is a new object
// of the same name and lifts the tombstone.
func (s *State) deletedVersion(key types.NamespacedName, rv string) bool {
	t, ok := s.deleted[key]
	if !ok {
		return false
	}
	if n, ok := parseRV(rv); ok && t.rv > 0 && n > t.rv {
		delete(s.deleted, key)
		return false
	}
	return true
}

// Tombstoned reports whether the source was forgotten and its tombstone
// still stands (see Forget).
func (s *State) Tombstoned(key types.NamespacedName) bool {
	_, ok := s.deleted[key]
	return ok
}

// LiftTombstone ends a source's tombstone: the caller knows the version it
// holds is of an object created after the deletion.
func (s *State) LiftTombstone(key types.NamespacedName) { delete(s.deleted, key) }

// Seq is a counter that grows with every observation and reservation. A
// caller that lists the sources without the lock reads it first and passes
// it to Resync, so that nothing observed after the list was taken is
// forgotten.
func (s *State) Seq() uint64 { return s.seq }

// DropReservations drops every reservation (the sources fall back to their
// committed placements) and returns how many there were. A leadership term's
// unwritten decisions end with it.
func (s *State) DropReservations() int {
	n := 0
	for k, src := range s.sources {
		if src.reservation != nil {
			src = s.own(k)
			src.reservation = nil
			s.recount(src)
			n++
		}
	}
	return n
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

// Reserve records the scheduler's decision for a source, made from the
// source at resource version basedOn. It counts against capacity at once.
func (s *State) Reserve(key types.NamespacedName, vreplicas int32, basedOn string, ps []vsched.Placement, now time.Time) {
	src := s.ownOrNew(key)
	src.vreplicas = vreplicas
	s.seq++
	src.seen = s.seq
	cp := append([]vsched.Placement(nil), ps...)
	src.reservation = &Reservation{Placements: cp, BasedOn: basedOn, At: now}
	s.recount(src)
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

// ReservationOf returns the source's reservation, if any.
func (s *State) ReservationOf(key types.NamespacedName) (Reservation, bool) {
	if src := s.sources[key]; src != nil && src.reservation != nil {
		return *src.reservation, true
	}
	return Reservation{}, false
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
	delete(s.sources, key)
	delete(s.pendingSet, key)
	s.freeSlots = append(s.freeSlots, src.slot)
	if int(src.slot) < len(s.bySlot) {
		s.bySlot[src.slot] = nil
	}
	return true
}

// ExpireReservations drops reservations made before now-ttl, so a status
// write that never happened cannot hold capacity forever. The source falls
// back to its committed placements. It returns the affected sources, sorted.
func (s *State) ExpireReservations(now time.Time, ttl time.Duration) []types.NamespacedName {
	var out []types.NamespacedName
	for key, src := range s.sources {
		if r := src.reservation; r != nil && now.Sub(r.At) >= ttl {
			src = s.own(key)
			src.reservation = nil
			s.recount(src)
			out = append(out, key)
		}
	}
	for key, t := range s.deleted {
		if now.Sub(t.at) >= ttl {
			delete(s.deleted, key)
		}
	}
	SortKeys(out)
	return out
}

// ReservationsExpireBy reports whether some reservation was made before
// now-ttl: ExpireReservations(now, ttl) would drop it.
func (s *State) ReservationsExpireBy(now time.Time, ttl time.Duration) bool {
	for _, src := range s.sources {
		if r := src.reservation; r != nil && now.Sub(r.At) >= ttl {
			return true
		}
	}
	return false
}

// ReservationStats counts the reservations and the age, at now, of the
// oldest, walking the sources without listing or sorting them.
func (s *State) ReservationStats(now time.Time) (n int64, oldest time.Duration) {
	for _, src := range s.sources {
		if r := src.reservation; r != nil {
			n++
			oldest = max(oldest, now.Sub(r.At))
		}
	}
	return n, oldest
}

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

// Sources lists every known source, sorted.
func (s *State) Sources() []types.NamespacedName { return sortedKeys(s.sources) }

func sortedKeys[V any](m map[types.NamespacedName]V) []types.NamespacedName {
	out := make([]types.NamespacedName, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	SortKeys(out)
	return out
}

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

// KeyLess orders source keys by namespace, then name: the one order every
// list of sources vsched logs, requeues or reports in.
func KeyLess(a, b types.NamespacedName) bool { return CompareKeys(a, b) < 0 }

// CompareKeys is KeyLess as a three-way comparison, for slices.SortFunc.
func CompareKeys(a, b types.NamespacedName) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// SortKeys sorts keys by KeyLess, in place.
func SortKeys(keys []types.NamespacedName) {
	sort.Slice(keys, func(i, j int) bool { return KeyLess(keys[i], keys[j]) })
}

// ExpireOne drops one source's reservation, falling back to its committed
// placements.
func (s *State) ExpireOne(key types.NamespacedName) {
	if src := s.sources[key]; src != nil && src.reservation != nil {
		src = s.own(key)
		src.reservation = nil
		s.recount(src)
	}
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
