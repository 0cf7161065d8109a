// Package removewithavailabilityzonepriority implements
// RemoveWithAvailabilityZonePriority, a descheduler score plugin that takes a
// source's vreplicas away from the availability zone holding the most of it
// first, so that the source stays evenly spread over zones (losing a zone
// loses as small a share as possible) while it scales down.
//
// # Domain
//
// Zones are counted as the scheduler's AvailabilityZonePriority counts them:
// only those hosting at least one candidate pod
// (framework.Cluster.SchedulableZones, summarised by
// framework.Decision.ZoneStats), each with the source's vreplicas on all its
// pods (Decision.OnZone). A counted zone holding none of the source counts as
// 0: it is a failure domain the source could be spread over. Zones without
// pods of the StatefulSet, or with only cordoned nodes, are not counted and
// never cause an error.
//
// # Score
//
// For a holder p in zone z with c = Decision.OnZone(z), and Max the most in
// any counted zone:
//
//	MaxScore                          if p is not a candidate or unknown, has
//	                                  no zone label, or z is not counted
//	0                                 if removing from z leaves the skew
//	                                  between zones above MaxSkew while
//	                                  removing from a fullest zone would not
//	MaxScore - 50*(Max - c)/MaxSkew   if c is Max, or the removal leaves the
//	                                  skew within MaxSkew
//	max(1, 9*ceil(100*c/Max)/100)     otherwise
//
// The last two lines are the bands shared with the scheduler's spread
// priorities (package removal): a preferred removal scores at least 50, any
// other at most 9, so the default descheduler's weights (10, 4, 2, 1) give
// zones, then nodes, then pods, then ordinals a strict order.
//
// The skew is the most minus the fewest of the source's vreplicas in a
// counted zone, after the removal (framework.DomainStats.SkewAfterRemove).
// Removing from a fullest zone always leaves the smallest skew possible; when
// even that leaves it above MaxSkew (a zone came back empty, say), nothing
// scores 0 and the fuller domains still score higher, which moves the
// source back towards MaxSkew. Every allowed removal scores 1 or more.
//
// Pods outside the counted zones score MaxScore: removing their vreplicas
// cannot change the counted skew, and those vreplicas do nothing for zone
// availability. That covers a pod whose zone failed or was cordoned, a pod
// that is draining or whose node is unschedulable, one beyond the
// StatefulSet's replicas, and one whose node has no zone label while other
// nodes have one (the mirror image of AvailabilityZonePriority, which places
// there last). Removing from an unavailable domain first is what an operator
// wants.
//
// With no counted zone at all (no node has a zone label) every holder scores
// MaxScore: there is no zone spread to keep, and a constant leaves the
// ranking to the other plugins. A pod holding none of the source (never a
// candidate when removing) scores 0.
package removewithavailabilityzonepriority
