package framework

import (
	"math"

	"github.com/vsched/vsched"
)

// costRun is what the cost-class path (costClass) keeps for one Run.
type costRun struct {
	// The classes as the last walk left them: keys[i] is the class whose
	// representative is reps[i], hashes[i] the key's hash. A walk finds a
	// few dozen classes: a linear search over the hashes costs less than
	// a map made for every Run, and comparing two keys in full only on
	// equal hashes less than comparing every key.
	keys   []costClass
	hashes []uint64
	reps   []int32
	table  classTable // finds a class by its hash
	// out is the step's candidates (the holders with room, then reps).
	out []int32
	// upTo is the highest ordinal that held vreplicas when the Run
	// started (UsedPrefix; MaxInt32 when unknown); set says it is read.
	upTo int32
	set  bool
	// visit is the free-candidate index's callback, made once per Run.
	visit func(int32) bool
	// nodeZone is each node's zone as the last full walk saw its pods
	// (unseenZone: it had no pod in a class), read to walk a zone again.
	nodeZone []int32
	// held is how many pods the source held at the last walk. Placing
	// only adds: until the decision places on a pod it did not hold, no
	// class changes (a pod's class changes only when the decision places
	// there, or, for the zone classes, on its node). Once it has, only
	// that pod's node's classes change, or, when the node was one the
	// source did not use, its zone's classes (rewalk).
	held   int
	walked bool
	// moved says the decision had taken vreplicas off a pod at the last
	// full walk (addMoved); placing takes none off.
	moved bool
}

// scoreCacheSize is the n a Run starts its score cache with: a Run on
// cost classes keeps scores whatever its size (scoreCacheMin is for the
// grouped path's 18 or so candidates a step; cost classes make about 30).
func scoreCacheSize(n int32, classed bool) int32 {
	if classed {
		return max(n, scoreCacheMin)
	}
	return n
}

// unseenZone marks a node the last full walk found no class on.
const unseenZone int32 = math.MinInt32

// costClassCandidates lists the candidate pods that hold the source and
// have room, and the first pod in class order (the lowest ordinal: a
// class's pods have the same free slots) of each cost class. On a cluster
// that indexes its free candidates per node (FreeCandidateIndex), only the
// pods with room are visited, and on each node only the first empty pod
// above the pods in use: every later one is empty too, in the same class.
func (r *run) costClassCandidates() []int32 {
	d := r.d
	idx, ok := d.cluster.(FreeCandidateIndex)
	if len(d.cost) > maxClassDims || !ok {
		return r.costClassWalk()
	}
	c := &r.cost
	if !c.set {
		c.upTo, c.set = int32(math.MaxInt32), true
		if up, ok := d.cluster.(UsedPrefix); ok {
			c.upTo = up.HighestUsedOrdinal()
		}
		c.visit = r.visitCostClass
	}
	switch {
	case !c.walked:
		r.walkCostClasses(idx)
	case len(d.Holders()) != c.held && !r.rewalkCostClasses(idx):
		r.walkCostClasses(idx)
	}
	c.out = append(append(c.out[:0], d.RoomHolders()...), c.reps...)
	for i, ord := range c.reps {
		// What the cost filter, the cost score and Strands read first,
		// from the use the class was found with: the pod's, unless the
		// decision changed it.
		if !d.changed.has(ord) {
			d.noteResourceFree(ord, vsched.CostSum(d.resCapacity(0), -c.keys[i].use[0]))
		}
	}
	return c.out
}

// walkCostClasses finds every class, node by node.
func (r *run) walkCostClasses(idx FreeCandidateIndex) {
	d, c := r.d, &r.cost
	c.begin()
	n := d.cluster.NumNodes()
	if len(c.nodeZone) != n {
		c.nodeZone = make([]int32, n)
	}
	for node := range int32(n) {
		c.nodeZone[node] = unseenZone
		idx.EachFreeCandidate(node, c.visit)
	}
	r.addMoved()
	c.held, c.walked = len(d.Holders()), true
}

// addMoved adds the pods this decision took vreplicas off (a rebalancing
// move): they may have room that the index, which shows the cluster, does
// not list. Adding a pod already in its class changes nothing.
func (r *run) addMoved() {
	d := r.d
	r.cost.moved = false
	for ord, delta := range d.delta.all() {
		if delta < 0 {
			r.cost.moved = true
			if d.cluster.Free(ord) <= 0 && d.cluster.IsCandidate(ord) {
				r.addCostClass(ord)
			}
		}
	}
}

// rewalkCostClasses brings the classes up to date after the decision
// placed on one of their representatives, a pod it did not hold: only the
// classes of that pod's node change, or, when the source did not use the
// node (a zone class), those of the node's zone, whose unused nodes are
// walked again with the node. It reports false when the holders changed
// otherwise, for a full walk.
func (r *run) rewalkCostClasses(idx FreeCandidateIndex) bool {
	d, c := r.d, &r.cost
	at := -1
	for i, ord := range c.reps {
		if d.OnPod(ord) > 0 {
			if at >= 0 {
				return false
			}
			at = i
		}
	}
	if at < 0 || len(d.Holders()) != c.held+1 {
		return false
	}
	group, ord := c.keys[at].node, c.reps[at]
	c.drop(group)
	if group >= 0 {
		idx.EachFreeCandidate(group, c.visit)
	} else {
		node, zone := d.place(ord).node, -2-group
		for n, z := range c.nodeZone {
			if z == zone && (int32(n) == node || d.OnNode(int32(n)) == 0) {
				idx.EachFreeCandidate(int32(n), c.visit)
			}
		}
	}
	if c.moved {
		r.addMoved()
	}
	c.held = len(d.Holders())
	return true
}

// drop removes the classes of the group (a node, or -2-zone for a zone's
// classes), keeping the others in order.
func (c *costRun) drop(group int32) {
	n := 0
	for i := range c.keys {
		if c.keys[i].node == group {
			continue
		}
		if n != i { // the classes before the first dropped stay where they are
			c.keys[n], c.hashes[n], c.reps[n] = c.keys[i], c.hashes[i], c.reps[i]
		}
		n++
	}
	if n != len(c.keys) {
		c.keys, c.hashes, c.reps = c.keys[:n], c.hashes[:n], c.reps[:n]
		c.table.rebuild(c.hashes)
	}
}

// visitCostClass adds a pod with room to its class, and stops the node's
// walk at the first pod in a class above the pods in use: the node's later
// pods are empty, and so in its class.
func (r *run) visitCostClass(ord int32) bool {
	return !r.addCostClass(ord) || ord <= r.cost.upTo
}

// costClassWalk is costClassCandidates over every candidate.
func (r *run) costClassWalk() []int32 {
	d := r.d
	if len(d.cost) > maxClassDims {
		return r.allCandidates()
	}
	c := &r.cost
	c.begin()
	for _, ord := range d.cluster.Candidates() {
		r.addCostClass(ord)
	}
	// The holders after the classes.
	c.out = append(c.out[:0], c.reps...)
	for _, ord := range d.cluster.Candidates() {
		if d.OnPod(ord) > 0 {
			c.out = append(c.out, ord)
		}
	}
	return c.out
}

func (c *costRun) begin() {
	if c.keys == nil {
		// One allocation each per Run for the few dozen classes of a walk.
		c.keys = make([]costClass, 0, 32)
		c.hashes = make([]uint64, 0, 32)
	}
	c.keys, c.hashes, c.reps = c.keys[:0], c.hashes[:0], c.reps[:0]
	c.table.reset()
}

// addCostClass adds a candidate that holds none of the source to its cost
// class, as the class's representative when it is the first seen or has a
// lower ordinal than the one before. It reports whether the pod is in a
// class (has room and holds none of the source).
func (r *run) addCostClass(ord int32) bool {
	d := r.d
	if d.OnPod(ord) > 0 {
		return false
	}
	free := d.Free(ord)
	if free <= 0 {
		return false
	}
	c := &r.cost
	p := d.place(ord)
	k := costClass{node: p.node, free: free}
	if p.node >= 0 && int(p.node) < len(c.nodeZone) {
		c.nodeZone[p.node] = p.zone
	}
	if r.p.zoneClassed && d.OnNode(p.node) == 0 {
		// A node the source does not use: the class widens to the zone
		// (ZoneEquivalenceAware), numbered apart from the nodes.
		k.node = -2 - p.zone
	}
	changed := d.changed.has(ord)
	h := uint64(uint32(k.node))<<32 | uint64(uint32(free))
	for dim := range d.cost {
		if changed {
			// A pod the decision took vreplicas off: its use without them.
			k.use[dim] = d.resCapacity(dim) - d.ResourceFree(ord, dim)
		} else {
			k.use[dim] = d.res.ResourceUsed(ord, dim)
		}
		h = (h ^ uint64(k.use[dim])) * 0x9E3779B97F4A7C15
	}
	if i := c.table.find(c, h, &k); i >= 0 {
		if ord < c.reps[i] {
			c.reps[i] = ord
		}
		return true
	}
	c.table.add(h, len(c.keys))
	c.keys = append(c.keys, k)
	c.hashes = append(c.hashes, h)
	c.reps = append(c.reps, ord)
	return true
}
