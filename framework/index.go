package framework

// FreeCandidateIndex is implemented by a Cluster that can list each node's
// candidates with free capacity without scanning every pod. The runtime's
// fast path uses it to find, per node, the lowest free pods a source does not
// hold: with thousands of mostly full pods that is the difference between
// touching a few pods per node and touching all of them on every decision.
type FreeCandidateIndex interface {
	// EachFreeCandidate calls fn with the ordinals of the node's candidate
	// pods whose Free is > 0, in ascending order, until fn returns false.
	// It may update internal caches, but must not change what the Cluster
	// reports.
	EachFreeCandidate(node int32, fn func(ordinal int32) bool)
}

// UsedPrefix is implemented by a Cluster that knows the highest ordinal
// holding any vreplica: every pod above it is empty. The fast path then
// stops listing a node's free candidates once it has as many empty ones as
// the decision can use, instead of reading every free pod to find the
// partly filled ones (best fit).
type UsedPrefix interface {
	// HighestUsedOrdinal is the highest ordinal whose pod holds any
	// vreplica (committed or reserved), -1 when none does.
	HighestUsedOrdinal() int32
}

// ZoneFreeIndex is implemented by a Cluster that keeps each zone's candidates
// with free capacity in class order (see ZoneEquivalenceAware), so that the
// runtime finds a zone's best pod on the nodes a source does not use without
// visiting every node.
type ZoneFreeIndex interface {
	// FirstFreeInZone returns, of the zone's candidate pods whose Free is
	// > 0, the one with the smallest ClassKey at least from, with its node
	// and key; ok is false when there is none. Zone -1 holds the pods on
	// nodes without a zone. It must not change what the Cluster reports.
	FirstFreeInZone(zone int32, from int64) (ordinal, node int32, key int64, ok bool)
	// NodesInZone lists the nodes of the zone (-1: without a zone) that
	// host a candidate. The runtime keeps per-node classes in a zone of a
	// few nodes, where the source soon uses most of them and a walk of
	// the zone's pods would mostly skip.
	NodesInZone(zone int32) []int32
}

// ClassKey orders the pods of a class: less free capacity first, then the
// lower ordinal. free and ordinal must not be negative.
func ClassKey(free, ordinal int32) int64 { return int64(free)<<32 | int64(ordinal) }

// RoomIndex is implemented by a Cluster that counts the nodes with room, so
// that the spread summaries (NodeStats, NodeRoomStats, ZoneRoomStats) cost
// what the nodes a decision touches are, not every node: every other node
// holds none of the source and has, under the decision, the room the
// cluster says.
type RoomIndex interface {
	// NodesWithRoom is how many nodes of the zone (-1: without a zone)
	// host a candidate whose Free is > 0.
	NodesWithRoom(zone int32) int
	// NodeRoom is the node's zone (-1: none), whether it hosts a
	// candidate, and whether one of them has Free > 0.
	NodeRoom(node int32) (zone int32, candidate, room bool)
}

// ZoneCapacityIndex is implemented by a Cluster that sums, per zone, the
// free capacity of its candidates (pods over capacity count 0), so that
// Decision.ZoneFree costs nothing per pod.
type ZoneCapacityIndex interface {
	ZoneFreeCapacity(zone int32) int64
}

// ZoneFree is the free capacity of the zone's candidate pods under this
// decision's changes, pods over capacity counting 0; ok is false when the
// cluster is no ZoneCapacityIndex, and the caller must sum the candidates
// itself.
func (d *Decision) ZoneFree(zone int32) (free int64, ok bool) {
	zi, ok := d.cluster.(ZoneCapacityIndex)
	if !ok {
		return 0, false
	}
	free = zi.ZoneFreeCapacity(zone)
	for ord, delta := range d.delta.all() {
		if p := d.place(ord); delta != 0 && p.candidate && p.zone == zone {
			free += int64(max(0, d.Free(ord)) - max(0, d.cluster.Free(ord)))
		}
	}
	return free, true
}

// PodPlacer is implemented by a Cluster that can say where a pod is without
// building a PodInfo (its name, node and zone names, its reason). The
// decision asks it for every candidate the spread plugins score; without it
// the decision keeps what Cluster.Pod said in a map.
type PodPlacer interface {
	// PodPlace is Pod's NodeIndex, ZoneIndex and Candidate, and whether
	// the pod is known (-1, -1, false, false when it is not).
	PodPlace(ordinal int32) (node, zone int32, candidate, known bool)
}
