package descheduler

import (
	"sort"

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
// count as 1). Heaviest first: with one resource, taking the k heaviest
// vreplicas gives the most weight any k can, so the count is the fewest
// there is; with two, a vreplica ranks by the larger of its shares of each
// need. Ties go to the source with the most vreplicas there, then by key,
// so the plan is deterministic. covered is false when the limits, or the
// vreplicas there, stop the plan short of need: it moves what it may.
func PlanShed(shares []HotShare, need []int64, maxPerCycle, maxPerSource int32) (moves []evictor.Move, covered bool) {
	maxPerCycle = max(maxPerCycle, 1)
	maxPerSource = min(max(maxPerSource, 1), maxPerCycle)
	order := make([]HotShare, 0, len(shares))
	for _, s := range shares {
		if s.VReplicas > 0 {
			order = append(order, s)
		}
	}
	rank := func(s HotShare) float64 {
		r := 0.0
		for d, n := range need {
			if n > 0 && d < len(s.Weight) {
				r = max(r, float64(s.Weight[d])/float64(n))
			}
		}
		return r
	}
	sort.SliceStable(order, func(i, j int) bool {
		ri, rj := rank(order[i]), rank(order[j])
		if ri != rj {
			return ri > rj
		}
		if order[i].VReplicas != order[j].VReplicas {
			return order[i].VReplicas > order[j].VReplicas
		}
		return state.KeyLess(order[i].Source, order[j].Source)
	})
	left := append([]int64(nil), need...)
	var used int32
	for _, s := range order {
		if met(left) || used >= maxPerCycle {
			break
		}
		if rank(s) == 0 {
			break // weighs nothing in what is over: moving it helps nothing
		}
		var n int32
		for n < min(s.VReplicas, maxPerSource) && used < maxPerCycle && !met(left) {
			for d := range left {
				if d < len(s.Weight) {
					left[d] -= s.Weight[d]
				}
			}
			n++
			used++
		}
		moves = append(moves, evictor.Move{Source: s.Source, VReplicas: n})
	}
	return moves, met(left)
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
