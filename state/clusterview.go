package state

import (
	"strings"

	"github.com/vsched/vsched/framework"
)

// Capacity implements framework.Cluster.
func (s *State) Capacity() int32 { return s.opts.Capacity }

// Replicas implements framework.Cluster.
func (s *State) Replicas() int32 { return s.replicas }

// Pod implements framework.Cluster.
func (s *State) Pod(ord int32) (framework.PodInfo, bool) {
	if ord < 0 || int(ord) >= len(s.pods) || !s.pods[ord].exists {
		return framework.PodInfo{}, false
	}
	s.ensure()
	p := &s.pods[ord]
	info := framework.PodInfo{
		Ordinal:   ord,
		Name:      s.names[ord],
		NodeIndex: -1,
		ZoneIndex: -1,
		Candidate: p.candidate(),
	}
	if !p.candidate() {
		// As ensure judged it: nothing the judgement reads has changed
		// since without making the state dirty.
		info.Reason = s.reason(ord, p.refusal)
	}
	if p.node >= 0 {
		n := &s.nodes[p.node]
		info.Node, info.NodeIndex, info.ZoneIndex = n.name, p.node, n.zone
		if n.zone >= 0 {
			info.Zone = s.zones[n.zone]
		}
	}
	return info, true
}

// IsCandidate implements framework.Cluster.
func (s *State) IsCandidate(ord int32) bool {
	if ord < 0 || int(ord) >= len(s.pods) || !s.pods[ord].exists {
		return false
	}
	s.ensure()
	return s.pods[ord].candidate()
}

// PodPlace implements framework.PodPlacer.
func (s *State) PodPlace(ord int32) (node, zone int32, candidate, known bool) {
	if ord < 0 || int(ord) >= len(s.pods) || !s.pods[ord].exists {
		return -1, -1, false, false
	}
	s.ensure()
	p := &s.pods[ord]
	if p.node < 0 {
		return -1, -1, p.candidate(), true
	}
	return p.node, s.nodes[p.node].zone, p.candidate(), true
}

// Free implements framework.Cluster.
func (s *State) Free(ord int32) int32 {
	if ord < 0 || int(ord) >= len(s.pods) || !s.pods[ord].exists {
		return 0
	}
	return saturate(s.pods[ord].free(s.opts.Capacity))
}

// Candidates implements framework.Cluster.
func (s *State) Candidates() []int32 { s.ensure(); return s.candidates }

// FreeCandidates implements framework.Cluster.
func (s *State) FreeCandidates() int { s.ensure(); return s.freeCands }

// NumNodes implements framework.Cluster.
func (s *State) NumNodes() int { return len(s.nodes) }

// NumZones implements framework.Cluster.
func (s *State) NumZones() int { return len(s.zones) }

// NodeName implements framework.Cluster.
func (s *State) NodeName(i int32) string {
	if i < 0 || int(i) >= len(s.nodes) {
		return ""
	}
	return s.nodes[i].name
}

// ZoneName implements framework.Cluster.
func (s *State) ZoneName(i int32) string {
	if i < 0 || int(i) >= len(s.zones) {
		return ""
	}
	return s.zones[i]
}

// SchedulableNodes implements framework.Cluster.
func (s *State) SchedulableNodes() []int32 { s.ensure(); return s.schedNodes }

// SchedulableZones implements framework.Cluster.
func (s *State) SchedulableZones() []int32 { s.ensure(); return s.schedZones }

// GrowthZones implements framework.Cluster.
func (s *State) GrowthZones() []int32 { s.ensure(); return s.growZones }

// Used is the vreplicas every source holds on the pod, committed or
// reserved, saturated at MaxInt32 (only statuses far beyond the bounds can
// reach it).
func (s *State) Used(ord int32) int32 {
	if ord < 0 || int(ord) >= len(s.pods) {
		return 0
	}
	return saturate(s.pods[ord].used)
}

// TotalUsed is the vreplicas held over all pods.
func (s *State) TotalUsed() int64 { return s.totalUsed }

// HighestUsedOrdinal is the highest ordinal holding any vreplica, -1 when
// none does. The StatefulSet must not shrink past it.
func (s *State) HighestUsedOrdinal() int32 {
	for i := len(s.pods) - 1; i >= 0; i-- {
		if s.pods[i].used > 0 {
			return int32(i)
		}
	}
	return -1
}

// NumPods is the size of the ordinal space known (existing or not).
func (s *State) NumPods() int32 { return int32(len(s.pods)) }

// PodExists reports whether the pod with the ordinal exists.
func (s *State) PodExists(ord int32) bool {
	return ord >= 0 && int(ord) < len(s.pods) && s.pods[ord].exists
}

// SchedulableNodeZones lists, ascending, the zones with at least one
// schedulable node (virtual nodes aside), whether or not a pod of the
// StatefulSet runs there yet: the zones a zone topology spread constraint
// spreads new pods over.
func (s *State) SchedulableNodeZones() []int32 {
	has := make([]bool, len(s.zones))
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.exists && n.schedulable && n.zone >= 0 && !strings.HasPrefix(n.name, VirtualNodePrefix) {
			has[n.zone] = true
		}
	}
	var out []int32
	for z, ok := range has {
		if ok {
			out = append(out, int32(z))
		}
	}
	return out
}

// FreeCapacity is the free capacity of the candidate pods: the sum of Free
// over candidates, pods over capacity counting 0.
func (s *State) FreeCapacity() int64 {
	s.ensure()
	var n int64
	for _, ord := range s.candidates {
		if f := s.pods[ord].free(s.opts.Capacity); f > 0 {
			n += f
		}
	}
	return n
}
