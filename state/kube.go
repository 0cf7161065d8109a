package state

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched"
)

// Taint keys the node lifecycle controller puts on nodes it has lost.
const (
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
	TaintNodeNotReady    = "node.kubernetes.io/not-ready"
)

// OrdinalOf returns the ordinal of a pod of this StatefulSet, or false for
// any other pod (including malformed names, and ordinals above MaxOrdinal:
// they are ignored, never fatal).
func (s *State) OrdinalOf(podName string) (int32, bool) {
	ord, ok := vsched.OrdinalOf(s.opts.StatefulSetName, podName)
	if !ok || ord > MaxOrdinal {
		return -1, false
	}
	return ord, true
}

// freeCandidate judges one pod afresh: a candidate with room. Used to tell
// whether an event made room without recomputing every pod.
func (s *State) freeCandidate(ord int32) bool {
	if ord < 0 || int(ord) >= len(s.pods) {
		return false
	}
	return s.judge(ord) == mayReceive && s.pods[ord].free(s.opts.Capacity) > 0
}

// UpsertPod records a pod of the StatefulSet (others are ignored). It
// reports whether capacity may have appeared.
func (s *State) UpsertPod(pod *corev1.Pod) bool {
	ord, ok := s.OrdinalOf(pod.Name)
	if !ok {
		return false
	}
	if !s.tracked(ord) {
		// Far above the replicas: kept aside, never a candidate.
		p := s.strays[ord]
		s.readPod(&p, pod)
		s.strays[ord] = p
		return false
	}
	s.grow(ord)
	before := s.freeCandidate(ord)
	s.readPod(&s.pods[ord], pod)
	s.notePodExists(ord)
	s.invalidate()
	return !before && s.freeCandidate(ord)
}

// readPod copies what the state keeps of a pod object.
func (s *State) readPod(p *podState, pod *corev1.Pod) {
	p.exists = true
	p.terminating = pod.DeletionTimestamp != nil
	v, has := pod.Annotations[s.opts.DrainingAnnotation]
	p.draining = has && v != "false"
	p.node = -1
	if pod.Spec.NodeName != "" {
		p.node = s.nodeIndex(pod.Spec.NodeName)
	}
}

// DeletePod records that a pod is gone. Its vreplicas stay counted on the
// ordinal: StatefulSet pods come back under the same name.
func (s *State) DeletePod(name string) {
	ord, ok := s.OrdinalOf(name)
	if !ok {
		return
	}
	if int(ord) >= len(s.pods) {
		// Strays are all above the pods (adoptStrays).
		delete(s.strays, ord)
		return
	}
	s.pods[ord].exists = false
	s.pods[ord].node = -1
	s.pods[ord].unboundSince = time.Time{}
	s.notePodExists(ord)
	s.invalidate()
}

// nodeIndex returns the index of a node, adding a placeholder for a node not
// seen yet (a pod's informer may run ahead of the node's). Indexes are never
// reused, so a decision's view of them stays consistent.
func (s *State) nodeIndex(name string) int32 {
	if i, ok := s.nodeIdx[name]; ok {
		return i
	}
	i := int32(len(s.nodes))
	s.nodeIdx[name] = i
	s.nodes = append(s.nodes, nodeState{name: name, zone: -1, reason: "node not seen yet"})
	return i
}

func (s *State) zoneIndex(name string) int32 {
	if name == "" {
		return -1
	}
	if i, ok := s.zoneIdx[name]; ok {
		return i
	}
	i := int32(len(s.zones))
	s.zoneIdx[name] = i
	s.zones = append(s.zones, name)
	return i
}

// NodeAvailability says whether new vreplicas may go to a node's pods, and
// if not why: cordoned, NotReady (or no Ready condition), or tainted
// unreachable / not-ready by the node lifecycle controller. unavailable is
// true for the last two, which mean the node's pods are not running work.
func NodeAvailability(node *corev1.Node) (schedulable bool, unavailable bool, reason string) {
	for _, t := range node.Spec.Taints {
		if t.Key == TaintNodeUnreachable || t.Key == TaintNodeNotReady {
			return false, true, "tainted " + t.Key
		}
	}
	ready := false
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = c.Status == corev1.ConditionTrue
		}
	}
	if !ready {
		return false, true, "node is not Ready"
	}
	if node.Spec.Unschedulable {
		return false, false, "node is cordoned"
	}
	return true, false, ""
}

// UpsertNode records a node. It reports whether capacity may have appeared.
func (s *State) UpsertNode(node *corev1.Node, now time.Time) bool {
	i := s.nodeIndex(node.Name)
	n := &s.nodes[i]
	before := n.exists && n.schedulable
	n.exists = true
	n.zone = s.zoneIndex(node.Labels[s.opts.ZoneLabel])
	var unavailable bool
	n.schedulable, unavailable, n.reason = NodeAvailability(node)
	switch {
	case !unavailable:
		n.unavailableSince = time.Time{}
	case n.unavailableSince.IsZero():
		n.unavailableSince = now
	}
	s.invalidate()
	// A node turning schedulable brings back every pod on it.
	return !before && n.schedulable
}

// DeleteNode records that a node is gone; its pods stop being candidates.
func (s *State) DeleteNode(name string) {
	if i, ok := s.nodeIdx[name]; ok {
		s.nodes[i].exists = false
		s.nodes[i].schedulable = false
		s.nodes[i].reason = "node was deleted"
		s.invalidate()
	}
}
