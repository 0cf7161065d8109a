package framework

import "slices"

// The holder classes (HolderEquivalenceAware): a step evaluates one pod per
// class of equivalent holders instead of every holder it may choose. A
// source of 10,000 vreplicas holds 500 pods or more (one spread over pods,
// thousands), and scoring each at every step made a decision cost the
// vreplicas changed times the pods held (issue 21); the classes are about
// the nodes times the distinct counts per node, and a step moves one
// holder from its class to the next.

// holderClassKey says what makes two holders equivalent: where the pod is
// (node and zone, whether the cluster knows it and counts it as a
// candidate), how many of the source's vreplicas it holds and, placing,
// its free capacity.
type holderClassKey struct {
	node, zone       int32
	known, candidate bool
	count, free      int32
}

// holderClasses keeps, per class, its members ascending; the
// representative is the first placing (lowest ordinal) and the last
// removing (highest). A class that empties gives its slot, and the array
// behind it, to the next new class (free), so a decision going through
// many counts allocates for the classes alive at once rather than for
// every class it meets. The candidates come in slot order, which depends
// only on the decision's steps; the winner does not depend on it (the
// runtime's tie-breaks are a total order).
type holderClasses struct {
	place   bool
	slot    map[holderClassKey]int
	members [][]int32
	free    []int
	groups  *holderGroups // removegroups.go; nil: the run does not choose by group
	// keys is each slot's class; slotAt, per ordinal, the slot of the
	// class the pod is in, plus 1 (0: none), so that a step finds the
	// class it changes without hashing its key.
	keys   []holderClassKey
	slotAt []int32
}

// holderClassKey is the pod's holder class as the decision stands, and
// whether it is in one: placing, the candidate holders with free capacity
// (Decision.RoomHolders); removing, every holder.
func (d *Decision) holderClassKey(ord int32) (holderClassKey, bool) {
	p := d.place(ord)
	k := holderClassKey{node: p.node, zone: p.zone, known: p.known, candidate: p.candidate, count: d.OnPod(ord)}
	if d.mode == Remove {
		return k, k.count > 0
	}
	k.free = d.Free(ord)
	return k, k.count > 0 && k.free > 0 && p.candidate // Cluster.IsCandidate, as place keeps it
}

// holderClassMin is the fewest holders a step may choose for which the
// classes are kept: below it, evaluating each costs less than keeping
// them (a map and a slice per class), and a source of up to 20 vreplicas,
// most of them, never reaches it.
const holderClassMin = 32

// holderList is the holders a step may choose: placing, the candidate
// holders with free capacity; removing, every holder.
func (d *Decision) holderList() []int32 {
	if d.mode == Remove {
		return d.Holders()
	}
	return d.RoomHolders()
}

// maybeHolderClasses starts the holder classes once the holders a step may
// choose are holderClassMin or more, if the run may use them (classes).
func (r *run) maybeHolderClasses() {
	if r.classes && r.holding == nil && len(r.d.holderList()) >= holderClassMin {
		r.startHolderClasses()
	}
}

// startHolderClasses sorts the holders a step may choose into their
// classes.
func (r *run) startHolderClasses() {
	hc := &holderClasses{place: r.d.mode == Place, slot: make(map[holderClassKey]int, 64), keys: make([]holderClassKey, 0, 64)}
	list := r.d.holderList() // ascending: members stay sorted
	hc.slotAt = make([]int32, max(list[len(list)-1]+1, 0))
	for _, ord := range list {
		if k, ok := r.d.holderClassKey(ord); ok {
			s := hc.slotOf(k, 4)
			hc.members[s] = append(hc.members[s], ord)
			hc.setSlot(ord, int32(s)+1)
		}
	}
	r.holding = hc
}

// slotOf returns the class's slot, making it when it is new with room for
// size members: a class is mostly filled by the members of the one its
// first member came from, and sizing it so allocates once per class rather
// than once per doubling.
func (hc *holderClasses) slotOf(k holderClassKey, size int) int {
	if s, ok := hc.slot[k]; ok {
		return s
	}
	var s int
	if n := len(hc.free); n > 0 {
		s, hc.free = hc.free[n-1], hc.free[:n-1]
	} else {
		s = len(hc.members)
		hc.members = append(hc.members, make([]int32, 0, size))
		hc.keys = append(hc.keys, holderClassKey{})
	}
	hc.slot[k], hc.keys[s] = s, k
	if hc.groups != nil {
		hc.groups.add(k, s)
	}
	return s
}

// rep is the representative of the class in slot s, which has members.
func (hc *holderClasses) rep(s int) int32 {
	m := hc.members[s]
	if hc.place {
		return m[0]
	}
	return m[len(m)-1]
}

// appendRepresentatives appends to out the first pod of every class in
// class order.
func (hc *holderClasses) appendRepresentatives(out []int32) []int32 {
	for _, m := range hc.members {
		switch {
		case len(m) == 0:
		case hc.place:
			out = append(out, m[0])
		default:
			out = append(out, m[len(m)-1])
		}
	}
	return out
}

// removeClassCandidates is one holder per class when removing; none when
// the run chooses by group (chooseGrouped reads the classes itself).
func (r *run) removeClassCandidates() []int32 {
	if r.holding.groups != nil {
		return r.cands[:0]
	}
	r.cands = r.holding.appendRepresentatives(r.cands[:0])
	return r.cands
}

// slotOfPod is the slot of the class the pod is in, plus 1 (0: none).
func (hc *holderClasses) slotOfPod(ord int32) int32 {
	if ord >= 0 && int(ord) < len(hc.slotAt) {
		return hc.slotAt[ord]
	}
	return 0
}

// setSlot records the pod's class slot plus 1 (0: none).
func (hc *holderClasses) setSlot(ord, s int32) {
	if ord < 0 {
		return
	}
	if int(ord) >= len(hc.slotAt) {
		if s == 0 {
			return
		}
		hc.slotAt = append(hc.slotAt, make([]int32, int(ord)+1-len(hc.slotAt))...)
	}
	hc.slotAt[ord] = s
}

// moved moves the pod, in the class of slot was minus 1 before the change
// (0: none), to its class now (none once it is out of every class).
func (hc *holderClasses) moved(d *Decision, ord int32, was int32) {
	size := 4
	if s := int(was) - 1; s >= 0 {
		size = max(size, len(hc.members[s]))
		if i, found := slices.BinarySearch(hc.members[s], ord); found {
			hc.members[s] = slices.Delete(hc.members[s], i, i+1)
		}
		if len(hc.members[s]) == 0 {
			delete(hc.slot, hc.keys[s])
			hc.free = append(hc.free, s)
			if hc.groups != nil {
				hc.groups.remove(s)
			}
		}
		hc.setSlot(ord, 0)
	}
	if k, ok := d.holderClassKey(ord); ok {
		s := hc.slotOf(k, size)
		if i, found := slices.BinarySearch(hc.members[s], ord); !found {
			hc.members[s] = slices.Insert(hc.members[s], i, ord)
		}
		hc.setSlot(ord, int32(s)+1)
	}
}

// apply applies the step's change to the decision and to what the run
// keeps about it (the zone queues and the holder classes).
func (r *run) apply(best, delta int32) {
	if r.holding == nil {
		r.d.apply(best, delta)
		r.maybeHolderClasses()
	} else {
		was := r.holding.slotOfPod(best)
		r.d.apply(best, delta)
		r.holding.moved(r.d, best, was)
	}
	if r.zoned {
		r.placed(best)
	}
	if r.queues != nil {
		r.headsFrom = r.d.place(best).node
	}
	if r.sc != nil {
		r.sc.noteChange(r.d, best)
	}
}

// denseForRemoval makes OnPod index a slice from the start of a removal of
// n vreplicas or more, denseMin of them: a removing step reads every
// representative holder's count several times (the runtime, the holder
// classes, each remove plugin), and a source of fewer than denseMin pods
// would otherwise hash each of those reads, removal after removal.
func (r *run) denseForRemoval(n int32) {
	if d := r.d; d.mode == Remove && n >= denseMin && d.onPodAt == nil && len(d.onPod) > 0 {
		d.densify(0)
	}
}
