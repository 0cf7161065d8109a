// Package lowestordinalpriority implements LowestOrdinalPriority, a scheduler
// score plugin that prefers pods with lower StatefulSet ordinals. Packing
// vreplicas onto the lowest ordinals leaves the highest ones empty, so the
// autoscaler can scale the StatefulSet down without moving anything.
//
// With R the StatefulSet's replicas, a pod with ordinal o scores
//
//	MaxScore * (R - 1 - o) / (R - 1)    for R > 1,
//	MaxScore                            for R <= 1,
//
// clamped to [0, MaxScore] (an ordinal at or above R, which the StatefulSet is
// scaling away, scores 0). The score never increases with the ordinal.
package lowestordinalpriority
