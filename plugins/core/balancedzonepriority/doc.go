// Package balancedzonepriority implements BalancedZonePriority, a scheduler
// score plugin that prefers the zones with the most free capacity, so that
// the StatefulSet's zones fill evenly.
//
// The spread plugins only look at the source being placed. When a source's
// vreplicas do not divide evenly over the zones, every one of them ties
// between zones for its last vreplicas and the runtime's tie-break (then
// the lowest ordinal) sends them all to the zone of the lowest ordinal. Under a hard zone spread
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
// weighs zones, not pods: within a zone the packing rules (InUsePodPriority,
// best fit, the lowest ordinal) still choose the pod. deploy/sample ranks it
// last, below the pod spread: a gradient of free room cannot outweigh a
// band of a plugin above it by a fixed margin, so any higher place would
// break the strict order of the others.
package balancedzonepriority
