// Package availabilitynodepriority implements AvailabilityNodePriority, a
// scheduler score plugin that spreads a source's vreplicas evenly over
// nodes, so that losing a node loses as small a share of the source as
// possible.
//
// Nodes are counted only when they host at least one candidate pod
// (framework.Cluster.SchedulableNodes): a node without pods of the
// StatefulSet, or a cordoned one, cannot take a vreplica and must not make the
// source look uneven.
//
// With c the source's vreplicas on the pod's node and Max the most on any
// counted node, a pod scores
//
//	MaxScore * (Max + 1 - c) / (Max + 1)
//
// so pods on emptier nodes score higher, and 0 when one more vreplica on its
// node would make the skew between nodes exceed MaxSkew (unless the node holds
// the fewest, which never widens the skew).
//
// Two cases are settled without arithmetic:
//   - No counted nodes: every pod scores MaxScore (there is nothing to spread
//     over; this only happens when no pod is a candidate).
//   - A pod not bound to a node scores 0 (it is never a candidate anyway).
package availabilitynodepriority
