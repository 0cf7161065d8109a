// Package evenpodspread implements EvenPodSpread, which keeps a source's
// vreplicas evenly spread over the StatefulSet's pods so that every pod
// consumes at about the same rate. It is both a filter and a score plugin.
//
// The spread is counted over the source's eligible pods: candidate pods that
// have free capacity or already hold the source (framework.Decision.PodStats).
// A full pod not holding the source can take nothing and is not counted, so it
// never makes the source look uneven. Likewise, once the source spans as
// many pods as a pod cap allows (NoMaxResourceCount in the same profile), only
// the candidates holding it are counted: the others can never take any of it.
//
// Filter: one more vreplica on pod p is rejected when it would make the skew
// (the most minus the fewest vreplicas on an eligible pod) exceed MaxSkew,
// unless p holds the fewest. Placing on a least-loaded pod never widens the
// skew, and allowing it lets a source that is already more uneven than MaxSkew
// (it grew while the StatefulSet had fewer pods) even out again instead of
// being stuck.
//
// Score: with c the vreplicas on p and Max the most on any eligible pod,
//
//	MaxScore * (Max + 1 - c) / (Max + 1)
//
// or 0 where the filter would reject; pods holding fewer score higher.
package evenpodspread
