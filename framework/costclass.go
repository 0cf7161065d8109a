package framework

import "math"

// costRun is what the cost-class path (costClass) keeps for one Run.
type costRun struct {
	// keys[i] is the class of cands[i] while a walk collects them. A
	// walk finds a few dozen classes: a linear search over them costs
	// less than hashing each key into a map made for every Run.
	keys  []costClass
	cands []int32
	// upTo is the highest ordinal that held vreplicas when the Run
	// started (UsedPrefix; MaxInt32 when unknown); set says it is read.
	upTo int32
	set  bool
	// visit is the free-candidate index's callback, made once per Run.
	visit func(int32) bool
	// reps are the classes' representatives as the last walk found
	// them, and held how many pods the source held then. Placing only
	// adds: until the decision places on a pod it did not hold, no class
	// changes (a pod's class changes only when the decision places
	// there, or, for the zone classes, on its node).
	reps   []int32
	held   int
	walked bool
}

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
	if !c.walked || len(d.Holders()) != c.held {
		c.begin()
		for node := range int32(d.cluster.NumNodes()) {
			idx.EachFreeCandidate(node, c.visit)
		}
		// A pod this decision took vreplicas off (a rebalancing move)
		// may have room that the index, which shows the cluster, does
		// not list.
		for ord, delta := range d.delta.all() {
			if delta < 0 && d.cluster.Free(ord) <= 0 && d.cluster.IsCandidate(ord) {
				r.addCostClass(ord)
			}
		}
		c.reps, c.cands = c.cands, c.reps
		c.held, c.walked = len(d.Holders()), true
	}
	c.cands = append(append(c.cands[:0], d.RoomHolders()...), c.reps...)
	return c.cands
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
	// The holders after the classes: keys[i] is the class of cands[i].
	for _, ord := range d.cluster.Candidates() {
		if d.OnPod(ord) > 0 {
			c.cands = append(c.cands, ord)
		}
	}
	return c.cands
}

func (c *costRun) begin() {
	if c.keys == nil {
		// One allocation per Run for the few dozen classes of a walk.
		c.keys = make([]costClass, 0, 32)
	}
	c.keys, c.cands = c.keys[:0], c.cands[:0]
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
	p := d.place(ord)
	k := costClass{node: p.node, free: free}
	if r.p.zoneClassed && d.OnNode(p.node) == 0 {
		// A node the source does not use: the class widens to the zone
		// (ZoneEquivalenceAware), numbered apart from the nodes.
		k.node = -2 - p.zone
	}
	changed := d.changed.has(ord)
	for dim := range d.cost {
		if changed {
			// A pod the decision took vreplicas off: its use without them.
			k.use[dim] = d.res.ResourceCapacity(dim) - d.ResourceFree(ord, dim)
		} else {
			k.use[dim] = d.res.ResourceUsed(ord, dim)
		}
	}
	c := &r.cost
	for i := range c.keys {
		if c.keys[i] == k {
			if ord < c.cands[i] {
				c.cands[i] = ord
			}
			return true
		}
	}
	c.keys = append(c.keys, k)
	c.cands = append(c.cands, ord)
	return true
}
