package descheduler

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/state"
)

// HotShare is a source's vreplicas on a hot pod and what one of them
// weighs in each of the pod's hot resources (milli-units, in the order of
// the need given to PlanShed).
type HotShare struct {
	Source    types.NamespacedName
	VReplicas int32
	Weight    []int64
}

// PlanShed chooses the vreplicas a hot pod sheds: the fewest whose
// weights, summed, reach need in every resource (need[d] is how much the
// pod is over its limit in resource d, 0 for a resource it is not over
// in), within maxPerCycle in all and maxPerSource per source (below 1 they
// count as 1). One vreplica at a time, the one whose weight is the
// largest share of what is still over (in the resource where its share is
// largest): with one resource that is the heaviest, and taking the k
// heaviest gives the most weight any k can, so the count is the fewest
// there is (and, of the plans that few, the one leaving the pod furthest
// under its limit); with two it is a greedy choice. Ties go to the source with the
// most vreplicas there, then by key, so the plan is deterministic.
// covered is false when the limits, or the vreplicas there, stop the plan
// short of need: it moves what it may. Moves come in the order first
// chosen.
func PlanShed(shares []HotShare, need []int64, maxPerCycle, maxPerSource int32) (moves []evictor.Move, covered bool) {
	maxPerCycle = max(maxPerCycle, 1)
	maxPerSource = min(max(maxPerSource, 1), maxPerCycle)
	left := append([]int64(nil), need...)
	taken := make([]int32, len(shares))
	at := map[int]int{} // share index to its move
	for used := int32(0); used < maxPerCycle && !met(left); used++ {
		best, bestRank := -1, 0.0
		for i, s := range shares {
			if taken[i] >= min(s.VReplicas, maxPerSource) {
				continue
			}
			r := shedRank(s, left)
			if r > 0 && (best < 0 || r > bestRank || (r == bestRank && before(s, shares[best]))) {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			break // nothing left weighs anything in what is over
		}
		for d := range left {
			if d < len(shares[best].Weight) {
				left[d] -= shares[best].Weight[d]
			}
		}
		taken[best]++
		if m, ok := at[best]; ok {
			moves[m].VReplicas++
			continue
		}
		at[best] = len(moves)
		moves = append(moves, evictor.Move{Source: shares[best].Source, VReplicas: 1})
	}
	return moves, met(left)
}

// shedRank is the largest share of what is still over, in any resource,
// that one of the source's vreplicas weighs.
func shedRank(s HotShare, left []int64) float64 {
	r := 0.0
	for d, l := range left {
		if l > 0 && d < len(s.Weight) && s.Weight[d] > 0 {
			r = max(r, float64(s.Weight[d])/float64(l))
		}
	}
	return r
}

// before breaks a tie between two sources as fast as their rank: the one
// with more vreplicas on the pod, then by key.
func before(a, b HotShare) bool {
	if a.VReplicas != b.VReplicas {
		return a.VReplicas > b.VReplicas
	}
	return state.KeyLess(a.Source, b.Source)
}

// met reports whether nothing is left over.
func met(left []int64) bool {
	for _, l := range left {
		if l > 0 {
			return false
		}
	}
	return true
}
