// Package removewithavailabilitynodepriority implements
// RemoveWithAvailabilityNodePriority, a descheduler score plugin that takes a
// source's vreplicas away from the node holding the most of it first, so that
// the source stays evenly spread over nodes (losing a node loses as small a
// share as possible) while it scales down.
//
// # Domain
//
// Nodes are counted as the scheduler's AvailabilityNodePriority counts them:
// only those hosting at least one candidate pod
// (framework.Cluster.SchedulableNodes, summarised by
// framework.Decision.NodeStats), each with the source's vreplicas on all its
// pods (Decision.OnNode). A counted node holding none of the source counts as
// 0: it is a failure domain the source could be spread over. Nodes without
// pods of the StatefulSet, cordoned or unreachable nodes are not counted and
// never cause an error.
//
// # Score
//
// For a holder p on node n with c = Decision.OnNode(n), and Max the most on
// any counted node:
//
//	MaxScore                          if p is not a candidate or unknown, is
//	                                  unbound, or n is not counted
//	0                                 if removing from n leaves the skew
//	                                  between nodes above MaxSkew while
//	                                  removing from a fullest node would not
//	MaxScore - 50*(Max - c)/MaxSkew   if c is Max, or the removal leaves the
//	                                  skew within MaxSkew
//	max(1, 9*ceil(100*c/Max)/100)     otherwise
//
// The last two lines are the bands shared with the scheduler's spread
// priorities (package removal): a preferred removal scores at least 50, any
// other at most 9, so the default descheduler's weights (10, 4, 2, 1) give
// zones, then nodes, then pods, then ordinals a strict order.
//
// The skew is the most minus the fewest of the source's vreplicas on a
// counted node, after the removal (framework.DomainStats.SkewAfterRemove).
// Removing from a fullest node always leaves the smallest skew possible; when
// even that leaves it above MaxSkew (a new node joined empty, say), nothing
// scores 0 and the fuller domains still score higher, which moves the
// source back towards MaxSkew. Every allowed removal scores 1 or more.
//
// Pods outside the counted nodes score MaxScore: removing their vreplicas
// cannot change the counted skew, and those vreplicas do nothing for node
// availability. That covers a pod on a cordoned, failed or unreachable node, a
// draining pod, an unbound one and one beyond the StatefulSet's replicas.
// Removing from an unavailable domain first is what an operator wants.
//
// With no counted node at all (no candidate pod) every holder scores
// MaxScore. A pod holding none of the source (never a candidate when
// removing) scores 0.
package removewithavailabilitynodepriority
