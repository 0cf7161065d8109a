package framework

// PodInfo is what plugins may know about one StatefulSet pod.
type PodInfo struct {
	// Ordinal is the pod's StatefulSet ordinal.
	Ordinal int32
	// Name is the pod's name ("<statefulset>-<ordinal>").
	Name string
	// Node is the node the pod is bound to, "" when unbound.
	Node string
	// NodeIndex is the node's index in [0, Cluster.NumNodes()), -1 when
	// the pod is unbound.
	NodeIndex int32
	// Zone is the node's zone label, "" when unknown.
	Zone string
	// ZoneIndex is the zone's index in [0, Cluster.NumZones()), -1 when
	// unknown.
	ZoneIndex int32
	// Candidate reports whether new vreplicas may be placed on the pod: it
	// exists, is bound, is not draining, and its node is schedulable.
	Candidate bool
	// Reason says why the pod is not a candidate; "" for candidates.
	Reason string
}

// Cluster is the cluster as plugins see it, at the moment of a decision.
// Package state implements it; tests use frameworktest.Cluster. A Cluster
// handed to a decision must not change while the decision runs.
type Cluster interface {
	// Capacity is the most vreplicas a pod may hold.
	Capacity() int32
	// Replicas is the StatefulSet's spec.replicas: pods may have ordinals
	// in [0, Replicas).
	Replicas() int32
	// Pod describes the pod with the ordinal. ok is false when no such pod
	// is known (ordinal out of range, or the pod does not exist yet).
	Pod(ordinal int32) (info PodInfo, ok bool)
	// IsCandidate is Pod's Candidate (false for an unknown pod), for the
	// hot paths that ask nothing else: it builds no PodInfo.
	IsCandidate(ordinal int32) bool
	// Free is the pod's capacity minus the vreplicas every source has on
	// it, committed or reserved. It is negative for a pod over capacity
	// and 0 for an unknown pod.
	Free(ordinal int32) int32
	// Candidates lists the ordinals of candidate pods in ascending order.
	// Callers must not modify the slice.
	Candidates() []int32
	// FreeCandidates is how many candidates have Free > 0.
	FreeCandidates() int
	// NumNodes and NumZones size the node and zone index spaces.
	NumNodes() int
	NumZones() int
	// NodeName and ZoneName map an index back to a name.
	NodeName(index int32) string
	ZoneName(index int32) string
	// SchedulableNodes and SchedulableZones list, ascending, the indexes of
	// the nodes (zones) that host at least one candidate pod. Spread
	// plugins count skew over these domains only, so a node with no pod of
	// the StatefulSet never makes a source look uneven.
	SchedulableNodes() []int32
	SchedulableZones() []int32
	// GrowthZones lists, ascending, the zones that a scale-up in flight
	// may still put pods into: while some ordinal below Replicas has no
	// pod bound to a node yet (or its pod is terminating, to be
	// recreated), every zone with a schedulable node that hosts no
	// candidate pod; otherwise none. Zone spread filters count these
	// zones as holding nothing, so that a source waits for the new pods
	// instead of piling into the zones whose pods were bound first.
	GrowthZones() []int32
}
