// Package lowestordinalpriority implements LowestOrdinalPriority, a scheduler
// score plugin that prefers pods with lower StatefulSet ordinals. Packing
// vreplicas onto the lowest ordinals leaves the highest ones empty, so the
// autoscaler can scale the StatefulSet down without moving anything.
//
// With R the StatefulSet's replicas, a pod with ordinal o scores
//
//	MaxScore                            for o < R when other sources use it,
//	MaxScore * (R - 1 - o) / (R - 1)    otherwise, for R > 1,
//	MaxScore                            for R <= 1,
//
// clamped to [0, MaxScore] (an ordinal at or above R, which the StatefulSet is
// scaling away, scores 0). A pod already in use costs no new pod, so it is as
// good as the lowest ordinal; among pods scoring alike the runtime's tie-break
// takes the fullest (best fit). New pods are opened lowest first, so the high
// ordinals stay empty for the autoscaler.
//
// The plugin is equivalence-aware under the runtime's class order (least free
// first): of two pods of a class, the fuller one is in use and scores
// MaxScore, and of two equally full ones the lower ordinal scores at least as
// high.
package lowestordinalpriority
