package framework

// room is, per decision generation, which counted nodes and zones can still
// take a vreplica: those with a candidate pod whose Free (this decision's
// changes included) is above 0.
type room struct {
	gen       uint64
	nodeZone  []int32 // per node index: its zone when it has room, else -2
	nodes     DomainStats
	zones     DomainStats
	nodesIn   []DomainStats // per zone: its nodes with room
	zoneAccs  []statsAcc
	zoneRooms []bool
}

const noRoom int32 = -2

// NodeRoomStats summarises the source's vreplicas over the counted nodes
// (Cluster.SchedulableNodes) that have room for one more vreplica. A full
// node can take nothing, so a spread rule that counted it would call every
// other node too loaded once the full one holds the fewest.
func (d *Decision) NodeRoomStats() DomainStats { return d.roomNow().nodes }

// ZoneRoomStats summarises the source's vreplicas over the counted zones
// (Cluster.SchedulableZones) that have room for one more vreplica.
func (d *Decision) ZoneRoomStats() DomainStats { return d.roomNow().zones }

// NodeRoomStatsInZone summarises the source's vreplicas over the nodes with
// room in the zone; every field is 0 when the zone has none.
func (d *Decision) NodeRoomStatsInZone(zone int32) DomainStats {
	r := d.roomNow()
	if zone < 0 || int(zone) >= len(r.nodesIn) {
		return DomainStats{}
	}
	return r.nodesIn[zone]
}

// NodeHasRoom reports whether the node hosts a candidate pod with free
// capacity.
func (d *Decision) NodeHasRoom(node int32) bool {
	r := d.roomNow()
	return node >= 0 && int(node) < len(r.nodeZone) && r.nodeZone[node] != noRoom
}

func (d *Decision) roomNow() *room {
	r := &d.room
	if r.gen == d.gen && r.nodeZone != nil {
		return r
	}
	r.gen = d.gen
	c := d.cluster
	if len(r.nodeZone) != c.NumNodes() {
		r.nodeZone = make([]int32, c.NumNodes())
		r.nodesIn = make([]DomainStats, c.NumZones())
		r.zoneAccs = make([]statsAcc, c.NumZones())
		r.zoneRooms = make([]bool, c.NumZones())
	}
	d.findRoom(r.nodeZone)
	var nodes, zones statsAcc
	for z := range r.zoneAccs {
		r.zoneAccs[z] = statsAcc{}
		r.zoneRooms[z] = false
	}
	for _, n := range c.SchedulableNodes() {
		z := r.nodeZone[n]
		if z == noRoom {
			continue
		}
		nodes.addN(d.OnNode(n), 1)
		if z >= 0 && int(z) < len(r.zoneAccs) {
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

// findRoom sets, per node index, the zone of the node when one of its
// candidate pods has free capacity, and noRoom otherwise.
func (d *Decision) findRoom(nodeZone []int32) {
	for i := range nodeZone {
		nodeZone[i] = noRoom
	}
	c := d.cluster
	if idx, ok := c.(FreeCandidateIndex); ok {
		for _, n := range c.SchedulableNodes() {
			if n < 0 || int(n) >= len(nodeZone) {
				continue
			}
			idx.EachFreeCandidate(n, func(ord int32) bool {
				if d.Free(ord) <= 0 {
					return true
				}
				if info, ok := c.Pod(ord); ok {
					nodeZone[n] = info.ZoneIndex
				}
				return false
			})
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

// PodRoomStatsOnNode summarises the source's vreplicas over the node's
// candidate pods that have room for one more vreplica (a pod with room
// holding none of the source counts 0); every field is 0 when none has.
func (d *Decision) PodRoomStatsOnNode(node int32) DomainStats {
	var acc statsAcc
	c := d.cluster
	for _, ord := range d.Holders() {
		if info, ok := c.Pod(ord); ok && info.Candidate && info.NodeIndex == node && d.Free(ord) > 0 {
			acc.addN(d.onPod[ord], 1)
		}
	}
	if d.nodeHasFreeNonHolder(node) {
		acc.addN(0, 1)
	}
	return acc.done()
}

// nodeHasFreeNonHolder reports whether a candidate pod of the node has room
// and holds none of the source.
func (d *Decision) nodeHasFreeNonHolder(node int32) bool {
	c := d.cluster
	found := false
	if idx, ok := c.(FreeCandidateIndex); ok {
		idx.EachFreeCandidate(node, func(ord int32) bool {
			found = d.onPod[ord] == 0 && d.Free(ord) > 0
			return !found
		})
		return found
	}
	for _, ord := range c.Candidates() {
		if info, ok := c.Pod(ord); ok && info.NodeIndex == node && d.onPod[ord] == 0 && d.Free(ord) > 0 {
			return true
		}
	}
	return false
}
