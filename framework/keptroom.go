package framework

// The room summaries (NodeRoomStats, ZoneRoomStats, NodeRoomStatsInZone,
// ZoneHasRoom) kept change by change once a decision keeps its summaries
// (keeps): per node, the weight it counts with (how often
// SchedulableNodes lists it, 0 without room) and the zone it counts in; per
// zone, its nodes with room as a countHist; over the zones with room, their
// counts. A change moves its node and zone, so a step no longer walks every
// node and zone (issue 21). On a RoomIndex cluster only the touched nodes
// are weighted, the others counting as zeros from the cluster's counts,
// as roomFromIndex does.

// roomKept is the kept side of room.
type roomKept struct {
	on      bool
	indexed bool
	// per node: weight, zone (-1: in none), the count contributed
	w, z, v []int32
	// per node on a walked cluster: how often SchedulableNodes lists it
	nmult []int32
	// per node on a RoomIndex cluster: touched, and its zone as the
	// RoomIndex says (-1: in none counted)
	ri      RoomIndex
	touched []bool
	riZone  []int32
	// NodeRoomStatsInZone's answers, per zone, and the generation they
	// are of
	inZoneStats []DomainStats
	inZoneGen   []uint64
	nodes       countHist
	inZone      []countHist
	zeros       int     // RoomIndex: untouched nodes with room
	zerosIn     []int32 // RoomIndex: per zone, its untouched nodes with room
	// per zone: how often SchedulableZones lists it, its weight among
	// the zones with room, the count contributed
	zmult, zw, zv []int32
	zones         countHist
}

// startKeptRoom builds the kept room summaries from the nodes with room.
func (d *Decision) startKeptRoom() {
	r, c := &d.room, d.cluster
	ri, indexed := d.roomIndex()
	if !r.found {
		r.nodeZone = make([]int32, c.NumNodes())
		if indexed {
			for i := range r.nodeZone {
				r.nodeZone[i] = unknownRoom
			}
		} else {
			d.findRoom(r.nodeZone)
		}
		r.found = true
	}
	k := &r.kept
	nn, nz := c.NumNodes(), c.NumZones()
	k.indexed, k.ri = indexed, ri
	// Started once per decision (Reset drops it): fresh arrays, few.
	k.inZoneGen = make([]uint64, nz)
	k.inZoneStats = make([]DomainStats, nz)
	block := make([]int32, 5*nn+4*nz)
	k.w, k.z, k.v, k.nmult, k.riZone = cut(&block, nn), cut(&block, nn), cut(&block, nn), cut(&block, nn), cut(&block, nn)
	k.zerosIn, k.zmult, k.zw, k.zv = cut(&block, nz), cut(&block, nz), cut(&block, nz), cut(&block, nz)
	hists := newHists(nz + 2)
	k.nodes, k.zones, k.inZone = hists[0], hists[1], hists[2:]
	for _, z := range c.SchedulableZones() {
		if z >= 0 && int(z) < nz {
			k.zmult[z]++
		}
	}
	k.on = true
	if indexed {
		k.zeros = ri.NodesWithRoom(-1)
		for z := range k.zerosIn {
			k.zerosIn[z] = int32(ri.NodesWithRoom(int32(z)))
			k.zeros += int(k.zerosIn[z])
		}
		k.touched = make([]bool, nn)
		for _, n := range d.touchedNodes() {
			d.touchRoom(n)
		}
	} else {
		k.zeros = 0
		for _, n := range c.SchedulableNodes() {
			if n >= 0 && int(n) < nn {
				k.nmult[n]++
			}
		}
		for n := range k.nmult {
			d.refreshRoomNode(int32(n))
		}
	}
	for z := range k.zw {
		d.refreshRoomZone(int32(z))
	}
}

// touchRoom moves a node the decision now touches out of the RoomIndex
// zeros and weights it by its room under the decision.
func (d *Decision) touchRoom(n int32) {
	k := &d.room.kept
	if n < 0 || int(n) >= len(k.touched) || k.touched[n] {
		return
	}
	k.touched[n] = true
	zone, _, base := k.ri.NodeRoom(n)
	inZone := zone >= 0 && int(zone) < len(k.zerosIn)
	k.riZone[n] = -1
	if inZone {
		k.riZone[n] = zone
	}
	if base {
		k.zeros--
		if inZone {
			k.zerosIn[zone]--
			d.refreshRoomZone(zone)
		}
	}
	d.refreshRoomNode(n)
}

// refreshRoomNode weights the node again by its room and count.
func (d *Decision) refreshRoomNode(n int32) {
	k := &d.room.kept
	if n < 0 || int(n) >= len(k.w) {
		return
	}
	oldZ := k.z[n]
	w, z := d.roomWeight(n)
	v := d.OnNode(n)
	if w == k.w[n] && z == oldZ {
		// The same weight in the same zone: the zones' totals hold.
		if w > 0 && v != k.v[n] {
			k.nodes.move(k.v[n], v, int(w))
			if z >= 0 {
				k.inZone[z].move(k.v[n], v, int(w))
			}
		}
		k.v[n] = v
		return
	}
	if w := int(k.w[n]); w > 0 {
		k.nodes.add(k.v[n], -w)
		if oldZ >= 0 {
			k.inZone[oldZ].add(k.v[n], -w)
		}
	}
	k.w[n], k.z[n], k.v[n] = w, z, v
	if w > 0 {
		k.nodes.add(v, int(w))
		if z >= 0 {
			k.inZone[z].add(v, int(w))
		}
	}
	if oldZ >= 0 {
		d.refreshRoomZone(oldZ)
	}
	if z >= 0 && z != oldZ {
		d.refreshRoomZone(z)
	}
}

// roomWeight is how the node counts among the nodes with room, and the zone
// it counts in (-1: none).
func (d *Decision) roomWeight(n int32) (w, zone int32) {
	r := &d.room
	k := &r.kept
	zone = -1
	if !k.indexed {
		z := r.nodeZone[n]
		if z == noRoom {
			return 0, -1
		}
		if z >= 0 && int(z) < len(k.inZone) {
			zone = z
		}
		return k.nmult[n], zone
	}
	if !k.touched[n] || d.nodeZoneOf(n) == noRoom {
		return 0, -1
	}
	return 1, k.riZone[n]
}

// keptZoneHasRoom is ZoneHasRoom from the kept summaries.
func (k *roomKept) zoneHasRoom(z int32) bool {
	return k.inZone[z].total+max(0, int(k.zerosIn[z])) > 0
}

// refreshRoomZone weights the zone again among the zones with room.
func (d *Decision) refreshRoomZone(z int32) {
	k := &d.room.kept
	if z < 0 || int(z) >= len(k.zw) {
		return
	}
	var w int32
	if k.zoneHasRoom(z) {
		w = k.zmult[z]
	}
	v := d.OnZone(z)
	if w == k.zw[z] {
		if w > 0 {
			k.zones.move(k.zv[z], v, int(w))
		}
		k.zv[z] = v
		return
	}
	if old := int(k.zw[z]); old > 0 {
		k.zones.add(k.zv[z], -old)
	}
	k.zw[z], k.zv[z] = w, v
	if w > 0 {
		k.zones.add(v, int(w))
	}
}

// noteRoomCounts moves the kept room summaries after a change to a pod on
// node (in zone): the node's count and room, the zone's count.
func (d *Decision) noteRoomCounts(node, zone int32) {
	k := &d.room.kept
	if !k.on {
		return
	}
	if node >= 0 && int(node) < len(k.w) {
		if k.indexed && !k.touched[node] {
			d.touchRoom(node)
		}
		d.refreshRoomNode(node)
	}
	d.refreshRoomZone(zone)
}

// keptRoomNow brings room's summaries to the decision's generation from
// the kept counts.
func (d *Decision) keptRoomNow() *room {
	r := &d.room
	if !r.kept.on {
		d.startKeptRoom()
	} else if r.gen == d.gen {
		return r
	}
	r.gen = d.gen
	r.nodes = r.kept.nodes.stats(r.kept.zeros)
	// r.zones is left: ZoneRoomStats reads the kept zones, and a zone
	// spread ranks among the feasible zones (FeasibleZoneStats) instead.
	return r
}

// keptInZone is NodeRoomStatsInZone from the kept counts, once per zone
// and generation.
func (d *Decision) keptInZone(zone int32) DomainStats {
	k := &d.room.kept
	if zone < 0 || int(zone) >= len(k.inZone) {
		return DomainStats{}
	}
	if k.inZoneGen[zone] != d.gen {
		k.inZoneStats[zone], k.inZoneGen[zone] = k.inZone[zone].stats(int(k.zerosIn[zone])), d.gen
	}
	return k.inZoneStats[zone]
}
