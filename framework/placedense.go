package framework

// A large decision asks where a pod is (Decision.place) some 40 times per
// step: the runtime for each candidate, the spread plugins for the pod they
// score, the summaries for the step's feasible candidates. Through a
// PodPlacer that is an interface call and a few slice reads every time
// (about a tenth of placing 1,000 vreplicas, issue 21); a slice indexed by
// ordinal, filled on first use, makes it one read. The entry keeps the
// cluster's Free too (the cluster does not change while a decision runs),
// and Decision.Free, asked as often, reads it and deltaAt without an
// interface call once the entry is filled (through place, the first fill
// cost more than it saved).

// placeDenseMin is the fewest vreplicas a decision changes before it keeps
// placeAt: a slice of the StatefulSet's size is worth it only for a source
// that places or removes many. At 64, the sources of the W1 and W2
// workloads (50 vreplicas at most) decide as before.
var placeDenseMin int32 = 64

// notePlaceDense starts the dense indexes once the decision has changed
// enough.
func (d *Decision) notePlaceDense() {
	if d.changes < placeDenseMin || d.room.placeAt != nil {
		return
	}
	d.startDense()
}

// expectChanges starts the dense indexes before a run that is to change n
// vreplicas, when that is enough: its first steps then read them too.
func (d *Decision) expectChanges(n int32) {
	if int64(d.changes)+int64(n) >= int64(placeDenseMin) && d.room.placeAt == nil {
		d.startDense()
	}
}

// startDense starts placeAt and with it onPodAt, deltaAt and the touched
// nodes' marks: OnPod and Free, each read for most candidates at every
// step, then index a slice rather than hash into a map (onPod holds a few
// dozen pods long before it reaches denseMin), and a step that changes a
// pod of a node already touched does not search the touched list.
func (d *Decision) startDense() {
	r := &d.room
	n := d.cluster.Replicas()
	if n <= 0 {
		return
	}
	r.placeAt = make([]placeSlot, n)
	if d.onPodAt == nil {
		d.densify(n)
	}
	if d.deltaAt == nil {
		d.denseDelta(n)
	}
	r.touchedMark = make([]bool, d.cluster.NumNodes())
	for _, node := range r.touched {
		if int(node) < len(r.touchedMark) {
			r.touchedMark[node] = true
		}
	}
}

// touch adds the node to the touched nodes.
func (d *Decision) touch(node int32) {
	r := &d.room
	if node >= 0 && int(node) < len(r.touchedMark) {
		if r.touchedMark[node] {
			return
		}
		r.touchedMark[node] = true
	}
	r.touched = insertSorted(r.touched, node)
}

// denseDelta builds deltaAt from delta, with room for n ordinals at least.
func (d *Decision) denseDelta(n int32) {
	for ord := range d.delta.all() {
		n = max(n, ord+1)
	}
	d.deltaAt = make([]int32, n)
	for ord, v := range d.delta.all() {
		if ord >= 0 {
			d.deltaAt[ord] = v
		}
	}
}

// placeSlot is placeAt's entry: the place, once set. The flag lives here,
// not in podPlace, whose four fields the compiler keeps in registers (a
// fifth made every copy of a podPlace, placing small sources too, go
// through memory: some 8% of their CPU time, issue 21).
type placeSlot struct {
	p    podPlace
	free int32 // Cluster.Free
	set  bool
}
