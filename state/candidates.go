package state

import "fmt"

// ensure recomputes what derives from pods and nodes. It runs after pod,
// node or replica changes, which are rare next to decisions.
func (s *State) ensure() {
	if !s.dirty {
		return
	}
	s.candidates = s.candidates[:0]
	s.freeCands = 0
	nodeHas := make([]bool, len(s.nodes))
	zoneHas := make([]bool, len(s.zones))
	if cap(s.nodeCands) < len(s.nodes) {
		s.nodeCands = make([][]int32, len(s.nodes))
		s.firstFree = make([]int32, len(s.nodes))
	}
	s.nodeCands = s.nodeCands[:len(s.nodes)]
	s.firstFree = s.firstFree[:len(s.nodes)]
	for i := range s.nodeCands {
		s.nodeCands[i] = s.nodeCands[i][:0]
		s.firstFree[i] = 0
	}
	for i := range s.pods {
		p := &s.pods[i]
		p.refusal = s.judge(int32(i))
		s.reindex(int32(i))
		if !p.candidate() {
			continue
		}
		s.candidates = append(s.candidates, int32(i))
		p.nodePos = int32(len(s.nodeCands[p.node]))
		s.nodeCands[p.node] = append(s.nodeCands[p.node], int32(i))
		if p.free(s.opts.Capacity) > 0 {
			s.freeCands++
		}
		nodeHas[p.node] = true
		if z := s.nodes[p.node].zone; z >= 0 {
			zoneHas[z] = true
		}
	}
	s.schedNodes = s.schedNodes[:0]
	for i, ok := range nodeHas {
		if ok {
			s.schedNodes = append(s.schedNodes, int32(i))
		}
	}
	s.listZoneNodes()
	s.countRoom()
	s.schedZones = s.schedZones[:0]
	for i, ok := range zoneHas {
		if ok {
			s.schedZones = append(s.schedZones, int32(i))
		}
	}
	s.growZones = s.growZones[:0]
	if s.growing() {
		for _, z := range s.SchedulableNodeZones() {
			if !zoneHas[z] {
				s.growZones = append(s.growZones, z)
			}
		}
	}
	s.dirty = false
}

// refusal says why a pod may not receive new vreplicas; the text is made
// only when Pod asks, not for every pod every time the pods are judged.
type refusal uint8

const (
	// unjudged is the zero value: a pod ensure has not judged yet, no
	// candidate. judge never returns it.
	unjudged refusal = iota
	mayReceive
	aboveReplicas
	podMissing
	podTerminating
	podUnbound
	podDraining
	nodeMissing
	nodeUnschedulable
)

// judge says whether the pod may receive new vreplicas (mayReceive), and
// if not why not.
func (s *State) judge(ord int32) refusal {
	p := &s.pods[ord]
	switch {
	case ord >= s.replicas:
		return aboveReplicas
	case !p.exists:
		return podMissing
	case p.terminating:
		return podTerminating
	case p.node < 0:
		return podUnbound
	case p.draining || s.drainMemory[ord]:
		return podDraining
	}
	n := &s.nodes[p.node]
	switch {
	case !n.exists:
		return nodeMissing
	case !n.schedulable:
		return nodeUnschedulable
	}
	return mayReceive
}

// reason is the text of the pod's refusal, "" when it has none.
func (s *State) reason(ord int32, r refusal) string {
	switch r {
	case aboveReplicas:
		return fmt.Sprintf("ordinal %d is at or above the StatefulSet's %d replicas", ord, s.replicas)
	case podMissing:
		return "pod does not exist"
	case podTerminating:
		return "pod is terminating"
	case podUnbound:
		return "pod is not bound to a node"
	case podDraining:
		return "pod is draining"
	case nodeMissing:
		return "node " + s.nodes[s.pods[ord].node].name + " does not exist"
	case nodeUnschedulable:
		n := &s.nodes[s.pods[ord].node]
		return "node " + n.name + ": " + n.reason
	}
	return ""
}

// growing reports whether some ordinal below the StatefulSet's replicas has
// no pod bound to a node yet, or a terminating one that will be recreated:
// a scale-up (or a replacement) whose pods kube-scheduler has still to
// place.
func (s *State) growing() bool {
	for ord := int32(0); ord < s.replicas && int(ord) < len(s.pods); ord++ {
		if p := &s.pods[ord]; !p.exists || p.node < 0 || p.terminating {
			return true
		}
	}
	return false
}

// setUsed adjusts one pod's used count, keeping the free-candidate count
// exact without a full recomputation.
func (s *State) addUsed(ord int32, delta int32) {
	s.grow(ord)
	p := &s.pods[ord]
	wasFree := p.free(s.opts.Capacity) > 0
	p.used += int64(delta)
	s.totalUsed += int64(delta)
	if !s.dirty && !s.holdIndex {
		s.reindex(ord)
	}
	if !s.dirty && p.candidate() {
		isFree := p.free(s.opts.Capacity) > 0
		if wasFree && !isFree {
			s.freeCands--
			s.noteNodeFree(p.node, -1)
		} else if !wasFree && isFree {
			s.freeCands++
			s.noteNodeFree(p.node, 1)
			if p.nodePos < s.firstFree[p.node] {
				s.firstFree[p.node] = p.nodePos
			}
		}
	}
}

// EachFreeCandidate implements framework.FreeCandidateIndex.
func (s *State) EachFreeCandidate(node int32, fn func(int32) bool) {
	s.ensure()
	if node < 0 || int(node) >= len(s.nodeCands) {
		return
	}
	list := s.nodeCands[node]
	i := s.firstFree[node]
	for int(i) < len(list) && s.pods[list[i]].free(s.opts.Capacity) <= 0 {
		i++
	}
	s.firstFree[node] = i
	for ; int(i) < len(list); i++ {
		if ord := list[i]; s.pods[ord].free(s.opts.Capacity) > 0 && !fn(ord) {
			return
		}
	}
}
