package descheduler

import (
	"sort"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/state"
)

// target is a draining pod to take vreplicas from: its drain, whose Excess
// is how many vreplicas must leave the pod (0: all of them).
type target struct {
	ordinal int32
	Drain
}

// planMoves chooses the sources to requeue this cycle. It walks targets in
// order (the caller puts the most urgent first, and within a reason the
// highest ordinals first, so the pods the StatefulSet loses first empty
// first) and, on each pod, the sources holding vreplicas there (holdings as
// state.HoldingsOn returns them). A source moves at most maxPerSource
// vreplicas per Schedule call, over all its draining pods, and is counted
// once; the plan stops before the total would exceed maxPerCycle. On a pod
// with an Excess, sources are taken smallest first until the excess is
// covered. maxPerSource and maxPerCycle below 1 count as 1. Sources in
// skip are planned already and are not planned again.
func planMoves(holdings []state.Holding, targets []target, maxPerCycle, maxPerSource int32, skip map[types.NamespacedName]bool) []evictor.Move {
	maxPerCycle = max(maxPerCycle, 1)
	maxPerSource = min(max(maxPerSource, 1), maxPerCycle)
	onTarget := make(map[int32]bool, len(targets))
	for _, t := range targets {
		onTarget[t.ordinal] = true
	}
	byOrd := map[int32][]state.Holding{}
	total := map[types.NamespacedName]int32{}
	for _, h := range holdings {
		if onTarget[h.Ordinal] && h.VReplicas > 0 {
			byOrd[h.Ordinal] = append(byOrd[h.Ordinal], h)
			total[h.Source] += h.VReplicas
		}
	}
	var out []evictor.Move
	planned := map[types.NamespacedName]bool{}
	// used is an int64: an evacuation's budget is MaxInt32, and the sum of
	// what the sources hold on the targets may pass it.
	var used int64
	for _, t := range targets {
		hs := byOrd[t.ordinal]
		need := int64(t.Excess)
		if t.Excess > 0 {
			hs = append([]state.Holding(nil), hs...)
			sort.SliceStable(hs, func(i, j int) bool { return hs[i].VReplicas < hs[j].VReplicas })
		} else {
			need = 1 << 62
		}
		for _, h := range hs {
			if need <= 0 {
				break
			}
			if planned[h.Source] || skip[h.Source] {
				need -= int64(min(h.VReplicas, maxPerSource))
				continue
			}
			cost := min(total[h.Source], maxPerSource)
			if used+int64(cost) > int64(maxPerCycle) {
				return out
			}
			planned[h.Source] = true
			used += int64(cost)
			need -= int64(min(h.VReplicas, maxPerSource))
			out = append(out, evictor.Move{Source: h.Source, VReplicas: cost})
		}
	}
	return out
}
