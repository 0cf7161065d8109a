package framework

import "math"

// The zone-grouped fast path (see ZoneEquivalenceAware). Per step it
// evaluates the source's holders, one pod per node the source uses (the
// node's class, as on the per-node path), and one pod per zone: the first
// in class order of the zone's pods on the nodes the source does not use.
// The zones' pods come from the cluster's ZoneFreeIndex, so nothing here
// visits every node.
//
// Within one Run, placing only adds: a pod that holds the source, or is on
// a node that does, stays so. Each zone's walk therefore resumes where the
// last one stopped (zoneFrom), and a decision reads each zone's index about
// once however many vreplicas it places.

// zoneQueue is a used node's per-node queue (see buildQueues).
type zoneQueue struct {
	node int32
	q    []int32
}

// zoneWalkMin is the fewest nodes a zone needs to be walked as one class:
// in a smaller zone the source soon uses most nodes, and evaluating a pod
// per node costs less than a walk that skips the used nodes' pods.
var zoneWalkMin = 8

// walksZones reports whether some zone is large enough to be walked; when
// none is, the per-node path does the same work with less bookkeeping.
func walksZones(zi ZoneFreeIndex, zones int) bool {
	for z := range int32(zones) {
		if len(zi.NodesInZone(z)) >= zoneWalkMin {
			return true
		}
	}
	return false
}

// buildZoneQueues starts the zone-grouped path: queues for the nodes the
// source uses, for the nodes without a zone, whose pods no zone class holds,
// and for every node of the zones too small to walk.
func (r *run) buildZoneQueues(n int32) {
	c := r.d.cluster
	r.usedUpTo, r.want = int32(math.MaxInt32), n
	if up, ok := c.(UsedPrefix); ok {
		r.usedUpTo = up.HighestUsedOrdinal()
	}
	r.zoneFrom = make([]int64, c.NumZones())
	r.zoneRepOrd = make([]int32, c.NumZones())
	for _, ord := range r.d.Holders() {
		r.useNode(r.nodeOf(ord))
	}
	for z := int32(-1); z < int32(len(r.zoneFrom)); z++ {
		nodes := r.zoneIdx.NodesInZone(z)
		if z >= 0 && len(nodes) >= zoneWalkMin {
			r.zoneRepOrd[z] = -1
			continue
		}
		for _, node := range nodes {
			r.useNode(node)
		}
		if z >= 0 {
			r.zoneFrom[z], r.zoneRepOrd[z] = math.MaxInt64, -1
		}
	}
}

func (r *run) nodeOf(ord int32) int32 {
	if info, ok := r.d.cluster.Pod(ord); ok {
		return info.NodeIndex
	}
	return -1
}

// useNode gives the node a queue of its own, once.
func (r *run) useNode(node int32) {
	if node < 0 {
		return
	}
	for i := range r.used {
		if r.used[i].node == node {
			return
		}
	}
	r.keys, r.empties = r.keys[:0], 0
	r.nodeIdx.EachFreeCandidate(node, r.collect)
	r.used = append(r.used, zoneQueue{node: node, q: r.firstByKey(r.want)})
}

// zoneCandidates is zone-grouped fastCandidates.
func (r *run) zoneCandidates() []int32 {
	d := r.d
	out := r.holderCandidates(r.cands[:0])
	// A pod the decision took vreplicas off (a rebalancing move) has more
	// room than the index says: it is evaluated on its own, and the zone
	// walks skip it.
	for ord, delta := range d.delta.all() {
		if delta != 0 && d.OnPod(ord) == 0 && d.Free(ord) > 0 {
			if d.cluster.IsCandidate(ord) {
				out = append(out, ord)
			}
		}
	}
	for i := range r.used {
		q := r.used[i].q
		for len(q) > 0 && (d.OnPod(q[0]) > 0 || d.Free(q[0]) <= 0) {
			q = q[1:]
		}
		r.used[i].q = q
		if len(q) > 0 {
			out = append(out, q[0])
		}
	}
	for z := range r.zoneFrom {
		if ord := r.zoneRep(int32(z)); ord >= 0 {
			out = append(out, ord)
		}
	}
	r.cands = out
	return out
}

// zoneRep is the zone's first pod in class order on a node the source does
// not use, -1 when there is none. The last one found stays the answer until
// the source uses its node.
func (r *run) zoneRep(zone int32) int32 {
	d := r.d
	if ord := r.zoneRepOrd[zone]; ord >= 0 {
		if d.OnPod(ord) == 0 && d.OnNode(r.zoneRepNode(zone)) == 0 {
			return ord
		}
	}
	for from := r.zoneFrom[zone]; from != math.MaxInt64; {
		ord, node, key, ok := r.zoneIdx.FirstFreeInZone(zone, from)
		if !ok {
			break
		}
		if d.OnPod(ord) == 0 && d.OnNode(node) == 0 && d.delta.get(ord) == 0 {
			r.zoneFrom[zone], r.zoneRepOrd[zone] = key, ord
			return ord
		}
		from = key + 1
	}
	r.zoneFrom[zone], r.zoneRepOrd[zone] = math.MaxInt64, -1
	return -1
}

// zoneRepNode is the node of the zone's last representative.
func (r *run) zoneRepNode(zone int32) int32 { return r.nodeOf(r.zoneRepOrd[zone]) }

// placed tells the zone-grouped path that the step placed on ord: its node
// is used from now on.
func (r *run) placed(ord int32) {
	if r.zoneFrom != nil {
		r.useNode(r.nodeOf(ord))
	}
}
