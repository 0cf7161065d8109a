// Package removewithhighestordinalpriority implements
// RemoveWithHighestOrdinalPriority (also accepted as HighestOrdinalPriority,
// the seed design's other spelling), a descheduler score plugin that takes a
// source's vreplicas away from the pods with the highest StatefulSet ordinals
// first. Emptying the highest ordinals is what lets the autoscaler scale the
// StatefulSet down without moving anything; it is the mirror image of the
// scheduler's LowestOrdinalPriority.
//
// With R the StatefulSet's replicas (framework.Cluster.Replicas), a pod with
// ordinal o scores, in int64 and rounded down,
//
//	MaxScore * o / (R - 1)    for R > 1 and 0 <= o < R - 1,
//	MaxScore                  for R > 1 and o >= R - 1,
//	MaxScore                  for R <= 1,
//
// and 0 for a negative ordinal. A pod at or beyond R (the StatefulSet was
// shrunk from outside and the pod is going away, or is gone) scores MaxScore,
// so its vreplicas go first. The score never decreases with the ordinal; with
// more than 101 replicas neighbouring ordinals may share a score, and the
// runtime's tie rule (highest ordinal first) still orders them.
//
// The plugin looks at nothing but the ordinal and R: it takes no args.
package removewithhighestordinalpriority
