// Package removewithevenpodspreadpriority implements
// RemoveWithEvenPodSpreadPriority, a descheduler score plugin that takes a
// source's vreplicas away from the pods holding the most of it first, so the
// source stays evenly spread over its pods (every pod consuming at about the
// same rate) while it scales down.
//
// # Domain
//
// The spread is counted over the source's available holders: the pods that
// hold at least one of its vreplicas and are candidates (bound, not draining,
// on a schedulable node). Pods holding none are not counted, unlike the
// scheduler's EvenPodSpread, which counts every candidate with free capacity
// as 0. That domain suits placing, where an empty pod is a place the vreplica
// could go; for removing it would be wrong twice over: no removal can come
// from an empty pod, and whether a non-holder counts would hinge on the free
// capacity other sources leave it, so one source's removals would change with
// unrelated sources' load. It would also pin the minimum at 0, reducing the
// skew to the largest count and MaxSkew to nothing.
//
// A pod emptied by a removal counts as 0 in the skew that removal leaves: the
// source was spread over it a moment ago, and giving it up while other pods
// keep more than MaxSkew more concentrates the source. From the next removal
// on, the pod holds nothing and is no longer counted.
//
// # Score
//
// For a holder p with c = Decision.OnPod(p) vreplicas, and Max the most any
// available holder has:
//
//	MaxScore                          if p is not a candidate, or unknown
//	0                                 if removing from p leaves the skew above
//	                                  MaxSkew while removing from a fullest pod
//	                                  would not
//	MaxScore - 50*(Max - c)/MaxSkew   if c is Max, or the removal leaves the
//	                                  skew within MaxSkew
//	max(1, 9*ceil(100*c/Max)/100)     otherwise
//
// The last two lines are the bands shared with the scheduler's spread
// priorities (package removal): a preferred removal scores at least 50, any
// other at most 9, so the default descheduler's weights (10, 4, 2, 1) give
// zones, then nodes, then pods, then ordinals a strict order.
//
// The skew is the most minus the fewest vreplicas on an available holder,
// counted after the removal (framework.DomainStats.SkewAfterRemove).
// Removing from a fullest pod always leaves the smallest skew possible, so the
// "while another would not" test is a comparison with that one removal. When
// no removal keeps the skew within MaxSkew (the source is already more uneven
// than allowed), nothing scores 0 and the fuller pods still score higher,
// which moves the source back towards MaxSkew. Every allowed removal scores 1
// or more, above a forbidden one.
//
// A holder that is not a candidate (draining, on a cordoned or unreachable
// node, unbound, or beyond the StatefulSet's replicas) scores MaxScore: its
// vreplicas are about to be moved or are not running at all, and removing
// them first is what an operator wants. Such pods are not counted in the
// spread. A pod holding none of the source (never a candidate when removing)
// scores 0.
//
// The plugin reads the holders' summary the Decision keeps current change by
// change (Decision.HolderPodStats); its Prepare and Changed do nothing and
// remain for callers that use them. The plugin value holds only its
// configuration.
package removewithevenpodspreadpriority
