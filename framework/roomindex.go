package framework

import "slices"

// The spread summaries on a RoomIndex cluster: the nodes the decision
// touches (those of its holders and of the pods it changed) are summarised
// one by one; every other node holds none of the source, and has room under
// the decision exactly when the cluster says so, so it counts as a 0 among
// the cluster's nodes with room. A summary costs what the touched nodes and
// the zones are, however many nodes the cluster has.

// roomIndexMin is the fewest nodes for which the summaries read the
// cluster's RoomIndex: on fewer, walking every node costs less than the
// bookkeeping of the touched ones.
var roomIndexMin = 32

// roomIndex returns the cluster's RoomIndex when the summaries should use
// it. It depends only on the cluster, so it answers the same for the whole
// decision.
func (d *Decision) roomIndex() (RoomIndex, bool) {
	ri, ok := d.cluster.(RoomIndex)
	return ri, ok && d.cluster.NumNodes() >= roomIndexMin
}

// roomFromIndex is roomNow on a RoomIndex cluster.
func (d *Decision) roomFromIndex(ri RoomIndex) {
	r := &d.room
	c := d.cluster
	if !r.found {
		r.nodeZone = make([]int32, c.NumNodes())
		for i := range r.nodeZone {
			r.nodeZone[i] = unknownRoom
		}
		r.nodesIn = make([]DomainStats, c.NumZones())
		r.zoneAccs = make([]statsAcc, c.NumZones())
		r.zoneRooms = make([]bool, c.NumZones())
		r.zeros = make([]int, c.NumZones())
		r.found = true
	}
	r.gen = d.gen
	zeros := ri.NodesWithRoom(-1)
	for z := range r.zoneAccs {
		r.zoneAccs[z] = statsAcc{}
		r.zeros[z] = ri.NodesWithRoom(int32(z))
		zeros += r.zeros[z]
	}
	var nodes statsAcc
	for _, n := range d.touchedNodes() {
		zone, _, base := ri.NodeRoom(n)
		inZone := zone >= 0 && int(zone) < len(r.zeros)
		if base {
			zeros--
			if inZone {
				r.zeros[zone]--
			}
		}
		if d.nodeZoneOf(n) == noRoom {
			continue
		}
		nodes.addN(d.OnNode(n), 1)
		if inZone {
			r.zoneAccs[zone].addN(d.OnNode(n), 1)
		}
	}
	nodes.addN(0, zeros)
	var zones statsAcc
	for z := range r.zoneAccs {
		r.zoneAccs[z].addN(0, r.zeros[z])
		r.nodesIn[z] = r.zoneAccs[z].done()
		r.zoneRooms[z] = r.nodesIn[z].Domains > 0
	}
	for _, z := range c.SchedulableZones() {
		if z >= 0 && int(z) < len(r.zoneRooms) && r.zoneRooms[z] {
			zones.addN(d.OnZone(z), 1)
		}
	}
	r.nodes, r.zones = nodes.done(), zones.done()
}

// nodeZoneOf is room.nodeZone[node], looked up on first use.
func (d *Decision) nodeZoneOf(node int32) int32 {
	r := &d.room
	if r.nodeZone[node] == unknownRoom {
		r.nodeZone[node] = noRoom
		d.findRoomOn(node, r.nodeZone)
	}
	return r.nodeZone[node]
}

// touchedNodes lists, ascending, the nodes of the decision's holders and of
// the pods it changed; kept per generation.
func (d *Decision) touchedNodes() []int32 {
	r := &d.room
	if r.touchedGen == d.gen && r.touchedOK {
		return r.touched
	}
	out := r.touched[:0]
	for _, ord := range d.Holders() {
		if n := d.place(ord).node; n >= 0 {
			out = append(out, n)
		}
	}
	for ord := range d.delta.all() {
		if n := d.place(ord).node; n >= 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	r.touched, r.touchedGen, r.touchedOK = slices.Compact(out), d.gen, true
	return r.touched
}

// nodeStatsFromIndex is NodeStats on a RoomIndex cluster: the touched nodes
// that host a candidate, and a 0 for each other node that does.
func (d *Decision) nodeStatsFromIndex(ri RoomIndex) DomainStats {
	var acc statsAcc
	others := len(d.cluster.SchedulableNodes())
	for _, n := range d.touchedNodes() {
		if _, candidate, _ := ri.NodeRoom(n); candidate {
			acc.addN(d.OnNode(n), 1)
			others--
		}
	}
	acc.addN(0, others)
	return acc.done()
}
