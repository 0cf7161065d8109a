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
// With c the source's vreplicas on the pod's node, and Min and Max the fewest
// and most on a counted node, a pod scores in the bands of package spread
// (as AvailabilityZonePriority does over zones):
//
//	MaxScore - 50*(c - Min)/MaxSkew     where one more vreplica on the node keeps
//	                                    the skew within MaxSkew, or c is Min
//	9*(Max + 1 - c)/(Max + 1)           elsewhere
//
// and, as for zones, Min and Max are taken over the nodes with room once the
// least-loaded node with room cannot take a vreplica within MaxSkew.
//
// Within a zone: a zone with few nodes that holds its share of the source
// (the zone spread put it there) has every node above the others, and no node
// of it within MaxSkew over all nodes. Such a node that is within MaxSkew over
// its own zone's nodes with room (Decision.NodeRoomStatsInZone) scores as
// those bands rank it there, minus LocalPenalty (5): the zone's least-loaded
// node still wins inside the zone, and a node within MaxSkew over all nodes
// still beats it.
//
// Two cases are settled without arithmetic:
//   - No counted nodes: every pod scores MaxScore (there is nothing to spread
//     over; this only happens when no pod is a candidate).
//   - A pod not bound to a node scores 0 (it is never a candidate anyway).
//
// A Run that keeps scores (framework.ScoreInputs) scores a node again when
// the nodes counted moved or a pod of its zone changed (the local ranking
// reads the zone's nodes with room), from the summary it returned for the
// step (framework.SummaryScorer). Placing 1,000 vreplicas on the bounds
// cluster with the default profile: 5.3 calls a step at about 261
// instructions (issue 21; about 433 before).
package availabilitynodepriority
