package state

import (
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// VirtualNodePrefix starts the name of every node AddVirtualPods and
// BindStartingPods invent. A '/' cannot appear in a Kubernetes node name, so
// the name never collides with a real node.
const VirtualNodePrefix = "vsched.dev/virtual-node/"

// Clone returns a deep copy of the state, for simulations: the autoscaler
// places pending vreplicas on a clone, with pods that do not exist yet, and
// nothing it does there reaches the scheduler. Call it with the state
// locked; the clone has its own (unlocked) mutex and is independent of the
// original from then on.
//
// Nothing per source is copied: the clone's map of sources is a copy of
// the original's (one block copy, no per-entry work), and both share the
// per-source records until one of them changes a record, which it copies
// first (own). The state never modifies a placement or holding slice in
// place either (every change installs a new slice), so a clone of ten
// thousand sources costs a few allocations and one block copy of the map.
func (s *State) Clone() *State {
	c := s.cloneTopology()
	c.sources = maps.Clone(s.sources)
	c.bySlot = slices.Clone(s.bySlot)
	// Both sides get a new owner number: every record is shared now.
	s.gen, c.gen = gens.Add(1), gens.Add(1)
	c.pendingSet = cloneMap(s.pendingSet)
	c.beyond = s.beyond
	return c
}

// cloneMap is maps.Clone, but an empty map is made afresh: a map that once
// held many entries keeps its table, and maps.Clone would copy it whole.
func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	if len(m) == 0 {
		return map[K]V{}
	}
	return maps.Clone(m)
}

// CloneFor is Clone for a simulation that changes only the given sources:
// the clone knows those sources alone, while its pods' free capacity still
// counts every source's placements. Placements, Reserve and Observe work
// for the given keys; anything that lists or counts sources (Sources,
// Pending, HighestUsedOrdinal, HoldingsOn, Resync...) sees only them, and
// Reserve for any other source that holds placements would count them
// twice. It costs what the pods and the given sources cost, however many
// sources the state holds.
func (s *State) CloneFor(keys []types.NamespacedName) *State {
	c := s.cloneTopology()
	c.gen = gens.Add(1)
	backing := make([]source, 0, len(keys))
	c.sources = make(map[types.NamespacedName]*source, len(keys))
	for _, k := range keys {
		if src, ok := s.sources[k]; ok {
			if _, dup := c.sources[k]; !dup {
				backing = append(backing, *src)
				backing[len(backing)-1].gen = c.gen
				c.sources[k] = &backing[len(backing)-1]
				if src.beyond {
					c.beyond++
				}
				if src.pending > 0 {
					c.pendingSet[k] = struct{}{}
				}
			}
		}
	}
	c.costs.others += len(s.sources) - len(c.sources)
	return c
}

// cloneTopology copies everything but the sources.
func (s *State) cloneTopology() *State {
	c := &State{
		opts: s.opts,
		// A clone sees the size decisions go by, fence included, as
		// plain replicas: a simulation resizes it freely.
		replicas:  s.replicas,
		observed:  s.replicas,
		highWater: s.highWater,
		pods:      slices.Clone(s.pods),
		// Entries never change and the clone's appends reallocate.
		names:       s.names[:len(s.names):len(s.names)],
		nodes:       slices.Clone(s.nodes),
		nodeIdx:     cloneMap(s.nodeIdx),
		zones:       slices.Clone(s.zones),
		zoneIdx:     cloneMap(s.zoneIdx),
		drainMemory: cloneMap(s.drainMemory),
		strays:      cloneMap(s.strays),
		outside:     s.outside,
		totalUsed:   s.totalUsed,
		seq:         s.seq,
		newestRV:    s.newestRV,
		deleted:     cloneMap(s.deleted),
		// The log is only appended to: the clone's slice ends here, so
		// what the original appends later is never what it reads.
		changes:     s.changes[:len(s.changes):len(s.changes)],
		epoch:       s.epoch,
		logShared:   true,
		roomSeq:     s.roomSeq,
		slots:       s.slots,
		freeSlots:   slices.Clone(s.freeSlots),
		pendingSet:  map[types.NamespacedName]struct{}{},
		zoneFree:    s.cloneZoneIndex(),
		zoneFreeSum: slices.Clone(s.zoneFreeSum),
		costs:       s.costs.clone(),
		// The derived indexes are rebuilt on first use, unless they are
		// current and copied below.
		dirty: true,
	}
	if !s.dirty {
		c.copyDerived(s)
	}
	return c
}

// copyDerived gives c copies of s's current derived indexes (ensure), so
// that c need not rebuild them: sharing their arrays would let the one
// overwrite the other's.
func (c *State) copyDerived(s *State) {
	c.candidates, c.freeCands = slices.Clone(s.candidates), s.freeCands
	c.schedNodes, c.schedZones, c.growZones = slices.Clone(s.schedNodes), slices.Clone(s.schedZones), slices.Clone(s.growZones)
	c.nodeCands, c.firstFree = cloneNested(s.nodeCands), slices.Clone(s.firstFree)
	c.zoneNodes, c.nodeFree, c.zoneRoom = cloneNested(s.zoneNodes), slices.Clone(s.nodeFree), slices.Clone(s.zoneRoom)
	c.dirty = false
}

// cloneNested copies a slice of slices, each inner one too.
func cloneNested(in [][]int32) [][]int32 {
	out := make([][]int32, len(in))
	for i, l := range in {
		out[i] = slices.Clone(l)
	}
	return out
}

// AddVirtualPods extends the StatefulSet by n pods, as a scale-up would,
// and makes each new pod exist, bound and schedulable at once, so that a
// simulation can place vreplicas on it.
//
// Where a new pod will run is unknown until kube-scheduler binds it. The
// state assumes the StatefulSet carries a zone topology spread constraint,
// as vsched's deployment recommends: each new pod goes to the zone that
// hosts the fewest candidate pods at that moment (ties: the zone seen
// first), among the zones with a schedulable node (SchedulableNodeZones),
// on a virtual node of that zone. With no schedulable
// zone the pods get a virtual node with no zone. One virtual node stands for
// each zone; its name starts with VirtualNodePrefix.
//
// A pod that already exists at one of the new ordinals, bound and not
// terminating (left over from a scale-down in progress), keeps its node.
// Draining memory for the new ordinals is dropped: it belonged to pods
// that were removed.
func (s *State) AddVirtualPods(n int32) {
	if n <= 0 {
		return
	}
	from := s.replicas
	zones, counts := s.zoneLoad()
	// SetReplicas caps the StatefulSet at MaxOrdinal+1, so loop to what it
	// kept; the sum is taken in int64 so that a huge n cannot wrap.
	s.SetReplicas(int32(min(int64(from)+int64(n), MaxOrdinal+1)))
	for ord := from; ord < s.replicas; ord++ {
		p := &s.pods[ord]
		delete(s.drainMemory, ord)
		if p.exists && !p.terminating && p.node >= 0 && !p.draining {
			if z := s.nodes[p.node].zone; z >= 0 && int(z) < len(counts) && s.nodes[p.node].schedulable {
				counts[z]++
			}
			continue
		}
		p.draining = false
		s.bindVirtual(ord, zones, counts)
	}
	s.invalidate()
}

// BindStartingPods treats every pod below the StatefulSet's replicas that
// does not exist yet, is not bound to a node, or is terminating (it will be
// recreated under the same name) as bound and schedulable, on a virtual
// node chosen as AddVirtualPods chooses. The StatefulSet's spec already
// pays for these pods; counting them as capacity keeps a simulation from
// asking for them a second time. It returns how many pods it bound.
// Draining pods stay draining. A pod unbound for grace or longer at now
// (UnboundPast) is not starting but waiting for a node none may give: it
// stays unbound, so that what would wait for it needs another pod.
func (s *State) BindStartingPods(now time.Time, grace time.Duration) int32 {
	zones, counts := s.zoneLoad()
	var n int32
	for ord := int32(0); ord < s.replicas && int(ord) < len(s.pods); ord++ {
		p := &s.pods[ord]
		if p.exists && p.node >= 0 && !p.terminating {
			continue
		}
		if since := p.unboundSince; !since.IsZero() && now.Sub(since) >= grace {
			continue
		}
		s.bindVirtual(ord, zones, counts)
		n++
	}
	// Ordinals below replicas that were never seen have no podState yet
	// when replicas grew without pods; grow made them, so the loop above
	// covered them.
	if n > 0 {
		s.invalidate()
	}
	return n
}

// zoneLoad returns the zones new pods may go to and, indexed by zone, how
// many candidate pods each hosts.
func (s *State) zoneLoad() ([]int32, []int32) {
	s.ensure()
	zones := s.SchedulableNodeZones()
	counts := make([]int32, len(s.zones))
	for _, ord := range s.candidates {
		if z := s.nodes[s.pods[ord].node].zone; z >= 0 {
			counts[z]++
		}
	}
	return zones, counts
}

// bindVirtual binds the pod to the virtual node of the least loaded zone.
func (s *State) bindVirtual(ord int32, zones []int32, counts []int32) {
	zone := int32(-1)
	for _, z := range zones {
		if zone < 0 || counts[z] < counts[zone] {
			zone = z
		}
	}
	name := VirtualNodePrefix
	if zone >= 0 {
		counts[zone]++
		name += s.zones[zone]
	}
	ni := s.nodeIndex(name)
	node := &s.nodes[ni]
	node.exists, node.schedulable, node.reason, node.zone = true, true, "", zone
	p := &s.pods[ord]
	p.exists, p.terminating, p.node, p.unboundSince = true, false, ni, time.Time{}
	s.notePodExists(ord)
}

// ClearDraining makes the pod not draining in this state, whatever its
// annotation says. It is for simulations on a Clone ("what if this drain
// were cancelled"); on the scheduler's own state the next pod event would
// undo it.
func (s *State) ClearDraining(ord int32) {
	if ord >= 0 && int(ord) < len(s.pods) {
		s.pods[ord].draining = false
	}
	delete(s.drainMemory, ord)
	s.invalidate()
}
