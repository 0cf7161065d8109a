package framework

import "slices"

// room is which counted nodes and zones can still take a vreplica: those
// with a candidate pod whose Free (this decision's changes included) is above
// 0. Which nodes have room is found once per decision and kept current as
// the decision fills or empties pods (noteFree); the summaries are rebuilt
// per generation from it, without touching pods.
type room struct {
	found     bool
	gen       uint64
	nodeZone  []int32 // per node index: its zone when it has room, else noRoom
	nodes     DomainStats
	zones     DomainStats
	nodesIn   []DomainStats // per zone: its nodes with room
	zoneAccs  []statsAcc
	zoneRooms []bool
	// the nodes whose pods with room are summarised, until the decision
	// changes one of their pods: few (the source's nodes), so a list
	// rather than an entry per node of the cluster
	podStats []nodePodStats
	places   map[int32]podPlace // place's memory
	// placeAt is place's memory again, indexed by ordinal, once the
	// decision changes placeDenseMin vreplicas, or a run is to
	// (placedense.go).
	placeAt []placeSlot
	// placer is the cluster as a PodPlacer (nil when it is not one): place
	// then asks it, and keeps no map.
	placer PodPlacer
	// A scan through the cluster's FreeCandidateIndex: one func per
	// decision, reading what to look for from these fields, rather than
	// a closure (an allocation) per scan.
	scanFn        func(int32) bool
	scanNonHolder bool
	scanHit       int32
	// On a RoomIndex cluster (roomindex.go): per zone, its nodes with room
	// the decision does not touch; the touched nodes (kept by the holder indexes).
	zeros   []int
	touched []int32
	// touchedMark marks the touched nodes, by index, once the decision
	// keeps placeAt (placedense.go); nil before.
	touchedMark []bool
	kept        roomKept // keptroom.go
	pods        podRoom  // podroom.go
}

const (
	noRoom int32 = -2
	// unknownRoom: not looked up yet (RoomIndex clusters only).
	unknownRoom int32 = -3
)

// NodeRoomStats summarises the source's vreplicas over the counted nodes
// (Cluster.SchedulableNodes) that have room for one more vreplica. A full
// node can take nothing, so a spread rule that counted it would call every
// other node too loaded once the full one holds the fewest.
func (d *Decision) NodeRoomStats() DomainStats { return d.roomNow().nodes }

// ZoneRoomStats summarises the source's vreplicas over the counted zones
// (Cluster.SchedulableZones) that have room for one more vreplica.
func (d *Decision) ZoneRoomStats() DomainStats {
	r := d.roomNow()
	if r.kept.on {
		return r.kept.zones.stats(0) // keptRoomNow leaves r.zones
	}
	return r.zones
}

// NodeRoomStatsInZone summarises the source's vreplicas over the nodes with
// room in the zone; every field is 0 when the zone has none.
func (d *Decision) NodeRoomStatsInZone(zone int32) DomainStats {
	if k := &d.room.kept; k.on && zone >= 0 && int(zone) < len(k.inZoneGen) && k.inZoneGen[zone] == d.gen {
		return k.inZoneStats[zone] // asked at this generation already
	}
	r := d.roomNow()
	if r.kept.on {
		return d.keptInZone(zone)
	}
	if zone < 0 || int(zone) >= len(r.nodesIn) {
		return DomainStats{}
	}
	return r.nodesIn[zone]
}

// ZoneHasRoom reports whether the zone hosts a candidate pod with free
// capacity.
func (d *Decision) ZoneHasRoom(zone int32) bool {
	r := d.roomNow()
	if k := &r.kept; k.on {
		return zone >= 0 && int(zone) < len(k.inZone) && k.zoneHasRoom(zone)
	}
	return zone >= 0 && int(zone) < len(r.zoneRooms) && r.zoneRooms[zone]
}

// NodeHasRoom reports whether the node hosts a candidate pod with free
// capacity.
func (d *Decision) NodeHasRoom(node int32) bool {
	r := d.roomNow()
	return node >= 0 && int(node) < len(r.nodeZone) && d.nodeZoneOf(node) != noRoom
}

func (d *Decision) roomNow() *room {
	if d.keeps() {
		return d.keptRoomNow()
	}
	r := &d.room
	if r.found && r.gen == d.gen {
		return r
	}
	if ri, ok := d.roomIndex(); ok {
		d.roomFromIndex(ri)
		return r
	}
	c := d.cluster
	if !r.found {
		r.nodeZone = make([]int32, c.NumNodes())
		r.nodesIn = make([]DomainStats, c.NumZones())
		r.zoneAccs = make([]statsAcc, c.NumZones())
		r.zoneRooms = make([]bool, c.NumZones())
		d.findRoom(r.nodeZone)
		r.found = true
	}
	r.gen = d.gen
	var nodes, zones statsAcc
	for z := range r.zoneAccs {
		r.zoneAccs[z] = statsAcc{}
		r.zoneRooms[z] = false
	}
	for _, n := range c.SchedulableNodes() {
		if n < 0 || int(n) >= len(r.nodeZone) || r.nodeZone[n] == noRoom {
			continue
		}
		nodes.addN(d.OnNode(n), 1)
		if z := r.nodeZone[n]; z >= 0 && int(z) < len(r.zoneAccs) {
			r.zoneAccs[z].addN(d.OnNode(n), 1)
			r.zoneRooms[z] = true
		}
	}
	for _, z := range c.SchedulableZones() {
		if z >= 0 && int(z) < len(r.zoneRooms) && r.zoneRooms[z] {
			zones.addN(d.OnZone(z), 1)
		}
	}
	for z := range r.zoneAccs {
		r.nodesIn[z] = r.zoneAccs[z].done()
	}
	r.nodes, r.zones = nodes.done(), zones.done()
	return r
}

// noteFree keeps the nodes with room current after the decision changed the
// pod's free capacity from freeBefore to free.
func (d *Decision) noteFree(info PodInfo, freeBefore, free int32) {
	r := &d.room
	for i := range r.podStats {
		if r.podStats[i].node == info.NodeIndex {
			r.podStats = slices.Delete(r.podStats, i, i+1)
			break
		}
	}
	if !r.found || !info.Candidate || info.NodeIndex < 0 || int(info.NodeIndex) >= len(r.nodeZone) {
		return
	}
	switch {
	case r.nodeZone[info.NodeIndex] == unknownRoom:
		// Looked up when first asked.
	case free > 0 && freeBefore <= 0:
		r.nodeZone[info.NodeIndex] = info.ZoneIndex
	case free <= 0 && freeBefore > 0:
		r.nodeZone[info.NodeIndex] = noRoom
		d.findRoomOn(info.NodeIndex, r.nodeZone)
	}
}

// findRoom sets, per node index, the zone of the node when one of its
// candidate pods has free capacity, and noRoom otherwise.
func (d *Decision) findRoom(nodeZone []int32) {
	for i := range nodeZone {
		nodeZone[i] = noRoom
	}
	c := d.cluster
	if _, ok := c.(FreeCandidateIndex); ok {
		for _, n := range c.SchedulableNodes() {
			if n >= 0 && int(n) < len(nodeZone) {
				d.findRoomOn(n, nodeZone)
			}
		}
		return
	}
	for _, ord := range c.Candidates() {
		info, ok := c.Pod(ord)
		if !ok || info.NodeIndex < 0 || int(info.NodeIndex) >= len(nodeZone) || nodeZone[info.NodeIndex] != noRoom {
			continue
		}
		if d.Free(ord) > 0 {
			nodeZone[info.NodeIndex] = info.ZoneIndex
		}
	}
}

// findRoomOn sets the node's entry when one of its candidates has room.
func (d *Decision) findRoomOn(node int32, nodeZone []int32) {
	c := d.cluster
	idx, ok := c.(FreeCandidateIndex)
	if !ok {
		for _, ord := range c.Candidates() {
			if info, ok := c.Pod(ord); ok && info.NodeIndex == node && d.Free(ord) > 0 {
				nodeZone[node] = info.ZoneIndex
				return
			}
		}
		return
	}
	found := d.scan(idx, node, false)
	if info, ok := c.Pod(found); ok && found >= 0 {
		nodeZone[node] = info.ZoneIndex
	} else if zone, ok := d.freedOn(node); ok {
		nodeZone[node] = zone
	}
}

// scan returns the first of the node's free candidates (in the index's
// order) with room under this decision that, when nonHolder, holds none of
// the source; -1 when there is none.
func (d *Decision) scan(idx FreeCandidateIndex, node int32, nonHolder bool) int32 {
	r := &d.room
	if r.scanFn == nil {
		r.scanFn = func(ord int32) bool {
			if d.Free(ord) <= 0 || (r.scanNonHolder && d.OnPod(ord) != 0) {
				return true
			}
			r.scanHit = ord
			return false
		}
	}
	r.scanNonHolder, r.scanHit = nonHolder, -1
	idx.EachFreeCandidate(node, r.scanFn)
	return r.scanHit
}

// PodRoomStatsOnNode summarises the source's vreplicas over the node's
// candidate pods that have room for one more vreplica (a pod with room
// holding none of the source counts 0); every field is 0 when none has.
// A node's summary is kept until the decision changes one of its pods.
func (d *Decision) PodRoomStatsOnNode(node int32) DomainStats {
	if d.keeps() {
		return d.keptPodRoomStats(node)
	}
	r := &d.room
	n := d.cluster.NumNodes()
	if node < 0 || int(node) >= n {
		return DomainStats{}
	}
	for _, e := range r.podStats {
		if e.node == node {
			return e.stats
		}
	}
	var acc statsAcc
	for _, ord := range d.RoomHolders() {
		if d.CandidateNode(ord) == node {
			acc.addN(d.OnPod(ord), 1)
		}
	}
	if d.nodeHasFreeNonHolder(node) {
		acc.addN(0, 1)
	}
	st := acc.done()
	r.podStats = append(r.podStats, nodePodStats{node: node, stats: st})
	return st
}

type nodePodStats struct {
	node  int32
	stats DomainStats
}

// podPlace is what a decision remembers of a pod's place. It keeps four
// fields: the compiler holds a struct of at most four in registers, and
// with five every copy, in place and its callers, went through the stack
// with a store-forwarding stall (placeSlot, placedense.go).
type podPlace struct {
	node, zone       int32
	known, candidate bool
}

// place looks the pod up once per decision: a pod's node and zone do not
// change while a decision runs, and Cluster.Pod costs more than a map.
func (d *Decision) place(ord int32) podPlace {
	r := &d.room
	if ord >= 0 && int(ord) < len(r.placeAt) {
		e := &r.placeAt[ord]
		if !e.set {
			e.p, e.free, e.set = d.lookUpPlace(ord), d.cluster.Free(ord), true
		}
		return e.p
	}
	return d.lookUpPlace(ord)
}

// lookUpPlace asks the cluster where the pod is (once per decision without
// a PodPlacer).
func (d *Decision) lookUpPlace(ord int32) podPlace {
	r := &d.room
	if r.placer != nil {
		node, zone, candidate, known := r.placer.PodPlace(ord)
		return podPlace{node: node, zone: zone, known: known, candidate: candidate}
	}
	if p, ok := r.places[ord]; ok {
		return p
	}
	p := podPlace{node: -1, zone: -1}
	if info, ok := d.cluster.Pod(ord); ok {
		p = podPlace{node: info.NodeIndex, zone: info.ZoneIndex, known: true, candidate: info.Candidate}
	}
	if r.places == nil {
		r.places = make(map[int32]podPlace, 16)
	}
	r.places[ord] = p
	return p
}

// PodDomains is the pod's node and zone index as Cluster.Pod reports them
// (-1 for none), and whether the pod is known; cheaper than Cluster.Pod for
// a plugin that needs only those.
func (d *Decision) PodDomains(ord int32) (node, zone int32, ok bool) {
	p := d.place(ord)
	return p.node, p.zone, p.known
}

// CandidateNode is the node index of a candidate pod, -1 for any other pod.
func (d *Decision) CandidateNode(ord int32) int32 {
	if p := d.place(ord); p.candidate {
		return p.node
	}
	return -1
}

// nodeHasFreeNonHolder reports whether a candidate pod of the node has room
// and holds none of the source.
func (d *Decision) nodeHasFreeNonHolder(node int32) bool {
	return d.freedNonHolderOn(node) || d.findFreeNonHolder(node) >= 0
}

// findFreeNonHolder returns a candidate pod of the node that has room and
// holds none of the source, -1 when there is none (a pod the decision
// freed may be missed: see freedNonHolderOn).
func (d *Decision) findFreeNonHolder(node int32) int32 {
	c := d.cluster
	if idx, ok := c.(FreeCandidateIndex); ok {
		return d.scan(idx, node, true)
	}
	for _, ord := range c.Candidates() {
		if info, ok := c.Pod(ord); ok && info.NodeIndex == node && d.OnPod(ord) == 0 && d.Free(ord) > 0 {
			return ord
		}
	}
	return -1
}
