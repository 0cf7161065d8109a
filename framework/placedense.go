package framework

// A large decision asks where a pod is (Decision.place) some 40 times per
// step: the runtime for each candidate, the spread plugins for the pod they
// score, the summaries for the step's feasible candidates. Through a
// PodPlacer that is an interface call and a few slice reads every time
// (about a tenth of placing 1,000 vreplicas, issue 21); a slice indexed by
// ordinal, filled on first use, makes it one read. (The cluster's Free,
// asked as often, is already about as cheap: kept the same way, it cost
// more.)

// placeDenseMin is the fewest vreplicas a decision changes before it keeps
// placeAt: a slice of the StatefulSet's size is worth it only for a source
// that places or removes many. At 64, the sources of the W1 and W2
// workloads (50 vreplicas at most) decide as before.
const placeDenseMin = 64

// notePlaceDense starts placeAt once the decision has changed enough.
func (d *Decision) notePlaceDense() {
	r := &d.room
	if d.changes != placeDenseMin || r.placeAt != nil {
		return
	}
	if n := d.cluster.Replicas(); n > 0 {
		r.placeAt = make([]placeSlot, n)
	}
}

// placeSlot is placeAt's entry: the place, once set. The flag lives here,
// not in podPlace, whose four fields the compiler keeps in registers (a
// fifth made every copy of a podPlace, placing small sources too, go
// through memory: some 8% of their CPU time, issue 21).
type placeSlot struct {
	p   podPlace
	set bool
}
