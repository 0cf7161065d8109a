// Package balancedzonepriority implements BalancedZonePriority, a scheduler
// score plugin that prefers the zones with the most free capacity, so that
// the StatefulSet's zones fill evenly.
//
// The spread plugins only look at the source being placed. When a source's
// vreplicas do not divide evenly over the zones, every one of them ties
// between zones for its last vreplicas and LowestOrdinalPriority sends them
// all to the zone of the lowest ordinal. Under a hard zone spread
// (EvenZoneSpread) that zone fills first and becomes the bottleneck: a
// source cannot take more in the other zones until it has more there, so
// vreplicas stay pending and the autoscaler adds pods to every zone while
// two of them still have room. Ranking zones by their free capacity sends
// the remainders to the emptiest zone instead.
//
// A zone's free capacity is the free room of its candidate pods, this
// decision's placements included. With F the most free capacity in any
// zone, a pod in a zone with f free scores
//
//	MaxScore * f / F
//
// Every pod scores MaxScore when no candidate pod has a zone or none has
// room; a pod on a node without a zone label scores 0 while zones exist. It
// weighs zones, not pods: within a zone LowestOrdinalPriority still packs
// onto the lowest ordinals.
package balancedzonepriority
