package state

import (
	"github.com/google/btree"

	"github.com/vsched/vsched/framework"
)

// The zone index keeps, per zone, the candidates with free capacity ordered
// by framework.ClassKey (less free first, then the lower ordinal), for the
// runtime's zone-grouped path (framework.ZoneFreeIndex): a decision then
// finds a zone's best pod on the nodes its source does not use in a few
// steps down a B-tree, instead of visiting every node.
//
// Every pod records where it is indexed (ikey, islot); reindex moves it
// when its free capacity or candidacy changes, so the trees hold exactly
// those records. Clone copies the trees lazily (copy on write): the
// autoscaler's simulations clone the state often and touch little.

// zoneIndexDegree is the B-trees' degree: nodes of up to 63 int64 keys, a
// few cache lines each.
const zoneIndexDegree = 32

// reindex puts the pod where its free capacity and candidacy say, in the
// tree of its node's zone (slot 0: nodes without a zone), or in none. It
// reads candidacy, so it runs only while the derived state is current.
func (s *State) reindex(ord int32) {
	p := &s.pods[ord]
	var key int64
	slot := int32(0)
	if f := p.free(s.opts.Capacity); p.candidate() && f > 0 {
		key = framework.ClassKey(saturate(f), ord)
		slot = s.nodes[p.node].zone + 1
	}
	if key == p.ikey && slot == p.islot {
		return
	}
	if p.ikey != 0 {
		s.zoneFree[p.islot].Delete(p.ikey)
		s.zoneFreeSum[p.islot] -= p.ikey >> 32
	}
	if key != 0 {
		for int(slot) >= len(s.zoneFree) {
			s.zoneFree = append(s.zoneFree, btree.NewG(zoneIndexDegree, func(a, b int64) bool { return a < b }))
			s.zoneFreeSum = append(s.zoneFreeSum, 0)
		}
		s.zoneFree[slot].ReplaceOrInsert(key)
		s.zoneFreeSum[slot] += key >> 32
	}
	p.ikey, p.islot = key, slot
}

// FirstFreeInZone implements framework.ZoneFreeIndex.
func (s *State) FirstFreeInZone(zone int32, from int64) (int32, int32, int64, bool) {
	s.ensure()
	slot := int(zone) + 1
	if slot < 0 || slot >= len(s.zoneFree) {
		return -1, -1, 0, false
	}
	s.seekOK = false
	if s.seekFn == nil {
		// One method value per State: a closure per call would
		// allocate on every step of every decision.
		s.seekFn = s.seekVisit
	}
	s.zoneFree[slot].AscendGreaterOrEqual(from, s.seekFn)
	if !s.seekOK {
		return -1, -1, 0, false
	}
	ord := int32(s.seekKey & 0xffffffff)
	return ord, s.pods[ord].node, s.seekKey, true
}

func (s *State) seekVisit(key int64) bool {
	s.seekKey, s.seekOK = key, true
	return false
}

// cloneZoneIndex returns copy-on-write clones of the zone trees.
func (s *State) cloneZoneIndex() []*btree.BTreeG[int64] {
	out := make([]*btree.BTreeG[int64], len(s.zoneFree))
	for i, t := range s.zoneFree {
		out[i] = t.Clone()
	}
	return out
}

// NodesInZone implements framework.ZoneFreeIndex.
func (s *State) NodesInZone(zone int32) []int32 {
	s.ensure()
	if slot := int(zone) + 1; slot >= 0 && slot < len(s.zoneNodes) {
		return s.zoneNodes[slot]
	}
	return nil
}

// listZoneNodes fills zoneNodes from schedNodes (ensure).
func (s *State) listZoneNodes() {
	for i := range s.zoneNodes {
		s.zoneNodes[i] = s.zoneNodes[i][:0]
	}
	for _, n := range s.schedNodes {
		slot := int(s.nodes[n].zone) + 1
		for slot >= len(s.zoneNodes) {
			s.zoneNodes = append(s.zoneNodes, nil)
		}
		s.zoneNodes[slot] = append(s.zoneNodes[slot], n)
	}
}

// countRoom recomputes nodeFree and zoneRoom (ensure).
func (s *State) countRoom() {
	s.nodeFree = append(s.nodeFree[:0], make([]int32, len(s.nodes))...)
	s.zoneRoom = append(s.zoneRoom[:0], make([]int, len(s.zones)+1)...)
	for _, ord := range s.candidates {
		if p := &s.pods[ord]; p.free(s.opts.Capacity) > 0 {
			s.noteNodeFree(p.node, 1)
		}
	}
}

// noteNodeFree counts one more (delta 1) or one fewer (-1) candidate with
// free capacity on the node.
func (s *State) noteNodeFree(node, delta int32) {
	before := s.nodeFree[node]
	s.nodeFree[node] += delta
	slot := s.nodes[node].zone + 1
	switch after := s.nodeFree[node]; {
	case before == 0 && after > 0:
		s.zoneRoom[slot]++
	case before > 0 && after == 0:
		s.zoneRoom[slot]--
	}
}

// NodesWithRoom implements framework.RoomIndex.
func (s *State) NodesWithRoom(zone int32) int {
	s.ensure()
	if slot := int(zone) + 1; slot >= 0 && slot < len(s.zoneRoom) {
		return s.zoneRoom[slot]
	}
	return 0
}

// NodeRoom implements framework.RoomIndex.
func (s *State) NodeRoom(node int32) (zone int32, candidate, room bool) {
	s.ensure()
	if node < 0 || int(node) >= len(s.nodes) {
		return -1, false, false
	}
	return s.nodes[node].zone, len(s.nodeCands[node]) > 0, s.nodeFree[node] > 0
}

// ZoneFreeCapacity implements framework.ZoneCapacityIndex: the sum of the
// free capacity the zone index holds.
func (s *State) ZoneFreeCapacity(zone int32) int64 {
	s.ensure()
	if slot := int(zone) + 1; slot >= 0 && slot < len(s.zoneFreeSum) {
		return s.zoneFreeSum[slot]
	}
	return 0
}
