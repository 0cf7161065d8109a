package framework

import "slices"

// The removal classes (RemovalEquivalenceAware): a removing step evaluates
// the highest ordinal of each class of equivalent holders instead of every
// pod the source holds. A source of 10,000 vreplicas holds 500 pods or
// more, and scoring each at every step made removing cost the vreplicas
// removed times the pods held (issue 21); the classes are about the nodes
// times the distinct counts per node, and each step moves one holder from
// its class to the next lower count's.

// removeClassKey says what makes two holders equivalent when removing:
// where the pod is (node and zone, whether the cluster knows it and counts
// it as a candidate) and how many of the source's vreplicas it holds.
type removeClassKey struct {
	node, zone       int32
	known, candidate bool
	count            int32
}

// removeClasses keeps, per class, its members ascending: the last is the
// class's representative. Slots are kept once made (a class emptied by one
// step is often refilled by a later one), in the order the classes first
// appeared, so the candidates come in a deterministic order.
type removeClasses struct {
	slot    map[removeClassKey]int
	members [][]int32
}

// removeClassKey is the pod's removal class as the decision stands.
func (d *Decision) removeClassKey(ord int32) removeClassKey {
	p := d.place(ord)
	return removeClassKey{node: p.node, zone: p.zone, known: p.known, candidate: p.candidate, count: d.OnPod(ord)}
}

// startRemoveClasses sorts the source's holders into their classes.
func (r *run) startRemoveClasses() {
	rc := &removeClasses{slot: make(map[removeClassKey]int, 16)}
	for _, ord := range r.d.Holders() { // ascending: members stay sorted
		s := rc.slotOf(r.d.removeClassKey(ord))
		rc.members[s] = append(rc.members[s], ord)
	}
	r.removing = rc
}

// slotOf returns the class's slot, making it when it is new.
func (rc *removeClasses) slotOf(k removeClassKey) int {
	s, ok := rc.slot[k]
	if !ok {
		s = len(rc.members)
		rc.slot[k] = s
		rc.members = append(rc.members, nil)
	}
	return s
}

// removeClassCandidates is the highest ordinal of every class.
func (r *run) removeClassCandidates() []int32 {
	out := r.cands[:0]
	for _, m := range r.removing.members {
		if len(m) > 0 {
			out = append(out, m[len(m)-1])
		}
	}
	r.cands = out
	return out
}

// moved moves the pod, which held before and now holds one fewer, to its
// new class (none once it holds nothing).
func (rc *removeClasses) moved(d *Decision, ord, before int32) {
	k := d.removeClassKey(ord)
	k.count = before
	if s, ok := rc.slot[k]; ok {
		if i, found := slices.BinarySearch(rc.members[s], ord); found {
			rc.members[s] = slices.Delete(rc.members[s], i, i+1)
		}
	}
	if k.count = d.OnPod(ord); k.count > 0 {
		s := rc.slotOf(k)
		if i, found := slices.BinarySearch(rc.members[s], ord); !found {
			rc.members[s] = slices.Insert(rc.members[s], i, ord)
		}
	}
}

// apply applies the step's change to the decision and to what the run
// keeps about it (the zone queues placing, the classes removing).
func (r *run) apply(best, delta int32) {
	before := r.d.OnPod(best)
	r.d.apply(best, delta)
	if r.zoned {
		r.placed(best)
	}
	if r.removing != nil {
		r.removing.moved(r.d, best, before)
	}
}
