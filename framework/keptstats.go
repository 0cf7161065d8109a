package framework

// The per-domain spread summaries (NodeStats, ZoneStats, ZoneSpreadStats)
// kept change by change. Each was rebuilt from every node or zone at every
// step of a large decision, since every step changes a count; a step now
// moves the one node's and zone's count in a countHist (counthist.go) and a
// summary reads it in O(1). They are started when first asked, so a decision
// that never asks pays nothing, and equal what the walk gave
// (TestKeptSummariesMatchScratch).

// domainCounts is a summary over a fixed list of domains (indexes into a
// count slice, a domain listed twice counting twice): each domain's weight
// (how often it is listed) and the count it contributes to hist.
type domainCounts struct {
	on    bool
	w, v  []int32
	hist  countHist
	zeros int // listed entries outside the count slice: each a 0
}

// start builds the summary of counts over the lists.
func (k *domainCounts) start(counts []int32, lists ...[]int32) {
	block := make([]int32, 2*len(counts))
	k.w, k.v = cut(&block, len(counts)), cut(&block, len(counts))
	k.hist = countHist{c: make([]countN, 0, histRoom)}
	k.zeros, k.on = 0, true
	for _, l := range lists {
		for _, i := range l {
			if i >= 0 && int(i) < len(counts) {
				k.w[i]++
			} else {
				k.zeros++
			}
		}
	}
	for i, w := range k.w {
		if w > 0 {
			k.v[i] = counts[i]
			k.hist.add(counts[i], int(w))
		}
	}
}

// set records that domain i (counted with weight w) now holds v.
func (k *domainCounts) set(i int32, w, v int32) {
	if i < 0 || int(i) >= len(k.w) {
		return
	}
	if old := k.w[i]; old > 0 {
		k.hist.add(k.v[i], -int(old))
	}
	k.w[i], k.v[i] = w, v
	if w > 0 {
		k.hist.add(v, int(w))
	}
}

// update records that domain i now holds v, its weight unchanged.
func (k *domainCounts) update(i int32, v int32) {
	if k.on && i >= 0 && int(i) < len(k.w) && k.w[i] > 0 && k.v[i] != v {
		k.hist.move(k.v[i], v, int(k.w[i]))
		k.v[i] = v
	}
}

func (k *domainCounts) stats(zeros int) DomainStats { return k.hist.stats(k.zeros + zeros) }

// keptStats holds the kept summaries of a decision.
type keptStats struct {
	nodes, zones, zoneSpread domainCounts
	// nodeExplicit counts, on a RoomIndex cluster, the touched nodes that
	// host a candidate: the nodes weighted in nodes; nodeTouched marks the
	// touched nodes (nil elsewhere).
	nodeExplicit int
	nodeTouched  []bool
	nodeIndex    RoomIndex // the RoomIndex nodes counts from, nil when it walks
}

// keepMin is the fewest vreplicas a decision changes before it keeps its
// summaries: below, a summary walks its domains when asked, as a small
// source's decision asks few and would pay for the kept ones' arrays.
var keepMin int32 = placeDenseMin

// keeps reports whether the summaries are kept rather than walked. It
// stays true for the rest of the decision.
func (d *Decision) keeps() bool { return d.changes >= keepMin }

// startNodeStats builds NodeStats' counts: over Cluster.SchedulableNodes,
// or on a RoomIndex cluster over the touched nodes that host a candidate
// (every other node a 0, see nodeStatsFromIndex).
func (d *Decision) startNodeStats() {
	k := &d.kept
	ri, ok := d.roomIndex()
	if !ok {
		k.nodes.start(d.onNode, d.cluster.SchedulableNodes())
		k.nodeTouched, k.nodeIndex = nil, nil
		return
	}
	k.nodeIndex = ri
	k.nodes.start(d.onNode)
	k.nodeExplicit = 0
	for _, n := range d.touchedNodes() {
		if _, candidate, _ := ri.NodeRoom(n); candidate {
			k.nodes.set(n, 1, d.OnNode(n))
			k.nodeExplicit++
		}
	}
	k.nodeTouched = make([]bool, d.cluster.NumNodes())
	for _, n := range d.touchedNodes() {
		if n >= 0 && int(n) < len(k.nodeTouched) {
			k.nodeTouched[n] = true
		}
	}
}

// keptNodeStats is NodeStats from the kept counts.
func (d *Decision) keptNodeStats() DomainStats {
	k := &d.kept
	if !k.nodes.on {
		d.startNodeStats()
	}
	if k.nodeIndex != nil {
		return k.nodes.stats(max(0, len(d.cluster.SchedulableNodes())-k.nodeExplicit))
	}
	return k.nodes.stats(0)
}

// keptZoneStats is ZoneStats from the kept counts.
func (d *Decision) keptZoneStats() DomainStats {
	k := &d.kept
	if !k.zones.on {
		k.zones.start(d.onZone, d.cluster.SchedulableZones())
	}
	return k.zones.stats(0)
}

// keptZoneSpreadStats is ZoneSpreadStats with growth zones.
func (d *Decision) keptZoneSpreadStats(growth []int32) DomainStats {
	k := &d.kept
	if !k.zoneSpread.on {
		k.zoneSpread.start(d.onZone, d.cluster.SchedulableZones(), growth)
	}
	return k.zoneSpread.stats(0)
}

// noteCounts moves the kept summaries after a change to a pod on node (in
// zone), once onNode and onZone hold the change.
func (d *Decision) noteCounts(node, zone int32) {
	k := &d.kept
	if node >= 0 && int(node) < len(d.onNode) {
		k.nodes.update(node, d.onNode[node])
		if k.nodes.on && k.nodeTouched != nil && !k.nodeTouched[node] {
			k.nodeTouched[node] = true
			if _, candidate, _ := k.nodeIndex.NodeRoom(node); candidate {
				k.nodes.set(node, 1, d.onNode[node])
				k.nodeExplicit++
			}
		}
	}
	if zone >= 0 && int(zone) < len(d.onZone) {
		k.zones.update(zone, d.onZone[zone])
		k.zoneSpread.update(zone, d.onZone[zone])
	}
	d.noteRoomCounts(node, zone)
}
