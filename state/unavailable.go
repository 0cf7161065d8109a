package state

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// UpsertPodAt is UpsertPod for a pod observed at now: a pod that exists
// without a node keeps the time it was first seen so (PodUnboundSince), so
// that one no node takes stops counting as room once the grace passes.
func (s *State) UpsertPodAt(pod *corev1.Pod, now time.Time) bool {
	grew := s.UpsertPod(pod)
	if ord, ok := s.OrdinalOf(pod.Name); ok && int(ord) < len(s.pods) {
		p := &s.pods[ord]
		switch {
		case !p.exists || p.terminating || p.node >= 0:
			p.unboundSince = time.Time{}
		case p.unboundSince.IsZero():
			p.unboundSince = now
		}
	}
	return grew
}

// PodUnboundSince is when the pod was first seen existing without a node
// (UpsertPodAt), zero when it is bound, missing, terminating, or was never
// seen with a time.
func (s *State) PodUnboundSince(ord int32) time.Time {
	if ord < 0 || int(ord) >= len(s.pods) {
		return time.Time{}
	}
	return s.pods[ord].unboundSince
}

// PodUnavailableSince is when the pod stopped running work as far as the
// state knows: its node's NodeUnavailableSince, else its PodUnboundSince;
// zero when neither applies.
func (s *State) PodUnavailableSince(ord int32) time.Time {
	if t := s.NodeUnavailableSince(ord); !t.IsZero() {
		return t
	}
	return s.PodUnboundSince(ord)
}

// UnboundPast lists, ascending, the ordinals below the replicas whose pod
// has been unbound for grace or longer at now: pods no node takes, which
// neither a decision nor a simulation counts as room.
func (s *State) UnboundPast(now time.Time, grace time.Duration) []int32 {
	var out []int32
	for ord := int32(0); ord < s.replicas && int(ord) < len(s.pods); ord++ {
		if since := s.pods[ord].unboundSince; !since.IsZero() && now.Sub(since) >= grace {
			out = append(out, ord)
		}
	}
	return out
}

// UnavailableVReplicas counts the vreplicas held on pods below the replicas
// that cannot run them now: a pod missing, terminating or not bound to a
// node, or on a node that is NotReady or unreachable. They are placed, so
// no pending count shows them.
func (s *State) UnavailableVReplicas() int64 {
	var n int64
	for ord := int32(0); ord < s.replicas && int(ord) < len(s.pods); ord++ {
		p := &s.pods[ord]
		if p.used <= 0 {
			continue
		}
		if !p.exists || p.terminating || p.node < 0 || !s.nodes[p.node].unavailableSince.IsZero() {
			n += p.used
		}
	}
	return n
}

// NodeUnavailableSince is when the pod's node was first seen NotReady or
// unreachable; zero when it is available or unknown.
func (s *State) NodeUnavailableSince(ord int32) time.Time {
	if ord < 0 || int(ord) >= len(s.pods) || s.pods[ord].node < 0 {
		return time.Time{}
	}
	return s.nodes[s.pods[ord].node].unavailableSince
}
