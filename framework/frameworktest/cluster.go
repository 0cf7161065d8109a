package frameworktest

import (
	"fmt"
	"sort"
	"sync"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// StatefulSetName is the name the fixture gives its StatefulSet's pods.
const StatefulSetName = "adapter"

type node struct {
	name, zone  string
	zoneIndex   int32
	unscheduled bool
}

type pod struct {
	// name and node are resolved once: Pod is called per candidate per
	// plugin, and benchmarks should measure the runtime, not the fixture.
	name     string
	node     int32 // index into nodes, -1 when unbound
	used     int32 // vreplicas of all sources, committed or reserved
	draining bool
	missing  bool
}

// Cluster is a framework.Cluster built by chained calls:
//
//	c := frameworktest.NewCluster(10).
//		Node("n0", "zone-a").Node("n1", "zone-b").
//		Pods("n0", "n1", "n0") // ordinals 0, 1, 2
//	c.Use(0, 7)              // other sources hold 7 vreplicas on pod 0
//
// It is not safe for concurrent mutation; reads are safe once built, from
// any number of goroutines.
type Cluster struct {
	capacity int32
	nodes    []node
	nodeIdx  map[string]int32
	zones    []string
	zoneIdx  map[string]int32
	pods     []pod

	// mu guards the lazily derived fields below: the first read after a
	// change computes them, and concurrent decisions may be that read.
	mu         sync.Mutex
	dirty      bool
	candidates []int32
	nodeCands  [][]int32 // per node index, ascending
	freeCands  int
	schedNodes []int32
	schedZones []int32
	growZones  []int32
}

var _ framework.Cluster = &Cluster{}

// NewCluster returns an empty cluster whose pods hold capacity vreplicas.
func NewCluster(capacity int32) *Cluster {
	return &Cluster{capacity: capacity, nodeIdx: map[string]int32{}, zoneIdx: map[string]int32{}, dirty: true}
}

// Node adds a schedulable node in zone ("" for no zone label).
func (c *Cluster) Node(name, zone string) *Cluster {
	if _, dup := c.nodeIdx[name]; dup {
		panic(fmt.Sprintf("frameworktest: node %q added twice", name))
	}
	zi := int32(-1)
	if zone != "" {
		var ok bool
		if zi, ok = c.zoneIdx[zone]; !ok {
			zi = int32(len(c.zones))
			c.zoneIdx[zone] = zi
			c.zones = append(c.zones, zone)
		}
	}
	c.nodeIdx[name] = int32(len(c.nodes))
	c.nodes = append(c.nodes, node{name: name, zone: zone, zoneIndex: zi})
	c.dirty = true
	return c
}

// Pods appends one pod per argument, bound to that node ("" = unbound).
func (c *Cluster) Pods(nodes ...string) *Cluster {
	for _, n := range nodes {
		ni := int32(-1)
		if n != "" {
			var ok bool
			if ni, ok = c.nodeIdx[n]; !ok {
				panic(fmt.Sprintf("frameworktest: pod on unknown node %q", n))
			}
		}
		c.pods = append(c.pods, pod{name: vsched.PodName(StatefulSetName, int32(len(c.pods))), node: ni})
	}
	c.dirty = true
	return c
}

// Use sets the vreplicas all sources hold on the pod.
func (c *Cluster) Use(ordinal int32, vreplicas int32) *Cluster {
	c.pods[ordinal].used = vreplicas
	c.dirty = true
	return c
}

// UsePlacements adds the placements' vreplicas to the pods they name.
func (c *Cluster) UsePlacements(ps []vsched.Placement) *Cluster {
	for _, p := range ps {
		ord, err := vsched.OrdinalFromPodName(p.PodName)
		if err != nil {
			panic(err)
		}
		if int(ord) < len(c.pods) {
			c.pods[ord].used += p.VReplicas
		}
	}
	c.dirty = true
	return c
}

// Cordon marks the node unschedulable.
func (c *Cluster) Cordon(name string) *Cluster {
	i, ok := c.nodeIdx[name]
	if !ok {
		panic(fmt.Sprintf("frameworktest: cordon of unknown node %q", name))
	}
	c.nodes[i].unscheduled = true
	c.dirty = true
	return c
}

// Drain marks the pod draining.
func (c *Cluster) Drain(ordinal int32) *Cluster {
	c.pods[ordinal].draining = true
	c.dirty = true
	return c
}

// Remove makes the pod not exist (its ordinal stays below Replicas).
func (c *Cluster) Remove(ordinal int32) *Cluster {
	c.pods[ordinal].missing = true
	c.dirty = true
	return c
}

func (c *Cluster) ensure() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return
	}
	// Fresh slices: a decision built before the change may still hold
	// the old ones.
	c.candidates = nil
	c.nodeCands = make([][]int32, len(c.nodes))
	c.freeCands = 0
	nodes := map[int32]bool{}
	zones := map[int32]bool{}
	for i := range c.pods {
		info, _ := c.podInfo(int32(i))
		if !info.Candidate {
			continue
		}
		c.candidates = append(c.candidates, int32(i))
		c.nodeCands[info.NodeIndex] = append(c.nodeCands[info.NodeIndex], int32(i))
		if c.capacity-c.pods[i].used > 0 {
			c.freeCands++
		}
		nodes[info.NodeIndex] = true
		if info.ZoneIndex >= 0 {
			zones[info.ZoneIndex] = true
		}
	}
	c.schedNodes = sortedKeys(nodes)
	c.schedZones = sortedKeys(zones)
	c.growZones = nil
	growing := false
	for _, p := range c.pods {
		growing = growing || p.missing || p.node < 0
	}
	if growing {
		grow := map[int32]bool{}
		for _, n := range c.nodes {
			if !n.unscheduled && n.zoneIndex >= 0 && !zones[n.zoneIndex] {
				grow[n.zoneIndex] = true
			}
		}
		c.growZones = sortedKeys(grow)
	}
	c.dirty = false
}

func sortedKeys(m map[int32]bool) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (c *Cluster) podInfo(ordinal int32) (framework.PodInfo, bool) {
	if ordinal < 0 || int(ordinal) >= len(c.pods) || c.pods[ordinal].missing {
		return framework.PodInfo{}, false
	}
	p := c.pods[ordinal]
	info := framework.PodInfo{Ordinal: ordinal, Name: p.name, NodeIndex: -1, ZoneIndex: -1}
	switch {
	case p.node < 0:
		info.Reason = "pod is not bound to a node"
	default:
		n := c.nodes[p.node]
		info.Node, info.NodeIndex, info.Zone, info.ZoneIndex = n.name, p.node, n.zone, n.zoneIndex
		switch {
		case p.draining:
			info.Reason = "pod is draining"
		case n.unscheduled:
			info.Reason = "node " + n.name + " is unschedulable"
		default:
			info.Candidate = true
		}
	}
	return info, true
}

// Capacity implements framework.Cluster.
func (c *Cluster) Capacity() int32 { return c.capacity }

// Replicas implements framework.Cluster.
func (c *Cluster) Replicas() int32 { return int32(len(c.pods)) }

// Pod implements framework.Cluster.
func (c *Cluster) Pod(ordinal int32) (framework.PodInfo, bool) { return c.podInfo(ordinal) }

// IsCandidate implements framework.Cluster.
func (c *Cluster) IsCandidate(ordinal int32) bool {
	info, ok := c.podInfo(ordinal)
	return ok && info.Candidate
}

// Free implements framework.Cluster.
func (c *Cluster) Free(ordinal int32) int32 {
	if ordinal < 0 || int(ordinal) >= len(c.pods) || c.pods[ordinal].missing {
		return 0
	}
	return c.capacity - c.pods[ordinal].used
}

// Candidates implements framework.Cluster.
func (c *Cluster) Candidates() []int32 { c.ensure(); return c.candidates }

// FreeCandidates implements framework.Cluster.
func (c *Cluster) FreeCandidates() int { c.ensure(); return c.freeCands }

// NumNodes implements framework.Cluster.
func (c *Cluster) NumNodes() int { return len(c.nodes) }

// NumZones implements framework.Cluster.
func (c *Cluster) NumZones() int { return len(c.zones) }

// NodeName implements framework.Cluster; "" for an index out of range.
func (c *Cluster) NodeName(i int32) string {
	if i < 0 || int(i) >= len(c.nodes) {
		return ""
	}
	return c.nodes[i].name
}

// ZoneName implements framework.Cluster; "" for an index out of range.
func (c *Cluster) ZoneName(i int32) string {
	if i < 0 || int(i) >= len(c.zones) {
		return ""
	}
	return c.zones[i]
}

// SchedulableNodes implements framework.Cluster.
func (c *Cluster) SchedulableNodes() []int32 { c.ensure(); return c.schedNodes }

// SchedulableZones implements framework.Cluster.
func (c *Cluster) SchedulableZones() []int32 { c.ensure(); return c.schedZones }

// GrowthZones implements framework.Cluster: while a pod is missing or
// unbound, the zones of schedulable nodes that host no candidate pod.
func (c *Cluster) GrowthZones() []int32 { c.ensure(); return c.growZones }

// Indexed is the same cluster also implementing
// framework.FreeCandidateIndex and framework.UsedPrefix, as package state's
// does, so that tests can
// run the runtime's fast path both with and without the index.
type Indexed struct{ *Cluster }

var (
	_ framework.FreeCandidateIndex = Indexed{}
	_ framework.UsedPrefix         = Indexed{}
	_ framework.ZoneFreeIndex      = Indexed{}
	_ framework.RoomIndex          = Indexed{}
	_ framework.ZoneCapacityIndex  = Indexed{}
)

// ZoneFreeCapacity implements framework.ZoneCapacityIndex.
func (x Indexed) ZoneFreeCapacity(zone int32) int64 {
	var n int64
	for _, ord := range x.Candidates() {
		if info, _ := x.Pod(ord); info.ZoneIndex == zone {
			n += int64(max(0, x.Free(ord)))
		}
	}
	return n
}

// NodesWithRoom implements framework.RoomIndex.
func (x Indexed) NodesWithRoom(zone int32) int {
	n := 0
	for node := range int32(len(x.nodes)) {
		if z, _, room := x.NodeRoom(node); room && z == zone {
			n++
		}
	}
	return n
}

// NodeRoom implements framework.RoomIndex.
func (x Indexed) NodeRoom(node int32) (zone int32, candidate, room bool) {
	zone = -1
	for _, ord := range x.Candidates() {
		if info, _ := x.Pod(ord); info.NodeIndex == node {
			zone, candidate = info.ZoneIndex, true
			room = room || x.Free(ord) > 0
		}
	}
	return zone, candidate, room
}

// NodesInZone implements framework.ZoneFreeIndex.
func (x Indexed) NodesInZone(zone int32) []int32 {
	var out []int32
	for _, n := range x.SchedulableNodes() {
		for _, ord := range x.Candidates() {
			if info, _ := x.Pod(ord); info.NodeIndex == n {
				if info.ZoneIndex == zone {
					out = append(out, n)
				}
				break
			}
		}
	}
	return out
}

// FirstFreeInZone implements framework.ZoneFreeIndex by visiting every
// candidate: the plain answer the state's index must agree with.
func (x Indexed) FirstFreeInZone(zone int32, from int64) (int32, int32, int64, bool) {
	best, found := int32(-1), false
	var bestKey int64
	for _, ord := range x.Candidates() {
		info, _ := x.Pod(ord)
		free := x.Free(ord)
		if info.ZoneIndex != zone || free <= 0 {
			continue
		}
		if key := framework.ClassKey(free, ord); key >= from && (!found || key < bestKey) {
			best, bestKey, found = ord, key, true
		}
	}
	if !found {
		return -1, -1, 0, false
	}
	info, _ := x.Pod(best)
	return best, info.NodeIndex, bestKey, true
}

// HighestUsedOrdinal implements framework.UsedPrefix.
func (x Indexed) HighestUsedOrdinal() int32 {
	for i := len(x.pods) - 1; i >= 0; i-- {
		if x.pods[i].used > 0 {
			return int32(i)
		}
	}
	return -1
}

// Indexed returns c with a free-candidate index.
func (c *Cluster) Indexed() Indexed { return Indexed{c} }

// EachFreeCandidate implements framework.FreeCandidateIndex.
func (x Indexed) EachFreeCandidate(node int32, fn func(ordinal int32) bool) {
	x.ensure()
	if node < 0 || int(node) >= len(x.nodeCands) {
		return
	}
	for _, ord := range x.nodeCands[node] {
		if x.Free(ord) > 0 && !fn(ord) {
			return
		}
	}
}
