package descheduler

import (
	"context"
	"math"
	"sort"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// drainRank orders the drains whose sources are requeued first: pods on
// lost nodes run nothing, pods over capacity run too much, compaction only
// saves pods.
var drainRank = map[string]int{evictor.ReasonUnavailable: 0, evictor.ReasonOverCapacity: 1, evictor.ReasonCompaction: 2}

// DrainPlan is the sources to requeue so that they move off the pods the
// evictor drains, by budget.
type DrainPlan struct {
	// Evacuate are the sources on pods drained because they stopped
	// running work (evictor.ReasonUnavailable: a lost node, or no node
	// at all), each with all it holds there. Their budget is their own:
	// those vreplicas run nowhere, so moving them disturbs nothing, and
	// the limits do not apply.
	Evacuate []evictor.Move
	// Limited are the other drains' sources, within the per-cycle and
	// per-source limits: pods over capacity (only their excess) before
	// compaction, highest ordinals first within each. A source already
	// evacuating is not planned again.
	Limited []evictor.Move
}

// Moves is every move of the plan, evacuation first.
func (p DrainPlan) Moves() []evictor.Move {
	return append(append([]evictor.Move(nil), p.Evacuate...), p.Limited...)
}

// PlanDrainMoves is PlanDrains' moves, evacuation first.
func PlanDrainMoves(base state.Reader, marks map[int32]string, wants map[int32]Drain, maxPerCycle, maxPerSource int32) []evictor.Move {
	return PlanDrains(base, marks, wants, maxPerCycle, maxPerSource).Moves()
}

// PlanDrains plans the sources to requeue so that they move off the pods
// the evictor drains (marks, ordinal to reason): evacuation on its own
// budget, the other drains within maxPerCycle and maxPerSource (see
// DrainPlan). Drained pods beyond the replicas, or holding nothing, need
// no move.
func PlanDrains(base state.Reader, marks map[int32]string, wants map[int32]Drain, maxPerCycle, maxPerSource int32) DrainPlan {
	targets := make([]target, 0, len(marks))
	for ord, reason := range marks {
		if ord >= base.Replicas() || base.Used(ord) <= 0 {
			continue
		}
		t := target{ordinal: ord, Drain: Drain{Reason: reason}}
		if reason == evictor.ReasonOverCapacity {
			t.Excess = wants[ord].Excess
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return DrainPlan{}
	}
	sort.Slice(targets, func(i, j int) bool {
		ri, rj := drainRank[targets[i].Reason], drainRank[targets[j].Reason]
		if ri != rj {
			return ri < rj
		}
		return targets[i].ordinal > targets[j].ordinal
	})
	on := make(map[int32]bool, len(targets))
	for _, t := range targets {
		on[t.ordinal] = true
	}
	holdings := base.HoldingsOn(func(ord int32) bool { return on[ord] })
	n := sort.Search(len(targets), func(i int) bool { return targets[i].Reason != evictor.ReasonUnavailable })
	var plan DrainPlan
	plan.Evacuate = planMoves(holdings, targets[:n], math.MaxInt32, math.MaxInt32, nil)
	planned := make(map[types.NamespacedName]bool, len(plan.Evacuate))
	for _, m := range plan.Evacuate {
		planned[m.Source] = true
	}
	plan.Limited = planMoves(holdings, targets[n:], maxPerCycle, maxPerSource, planned)
	return plan
}

// RebalanceMoves finds the sources whose placements break the rule of one
// of the profile's Rebalancers (EvenZoneSpread once a zone is back) and
// that a Schedule call would repair now: Rebalance is tried on a scratch
// decision against base, which it does not change, so a source whose
// repair finds no room is not requeued cycle after cycle. Sources go in
// key order, each counting the moves it would make, until budget is spent;
// the ones past it are not tried. listed is the lister's copy of each
// source (a source missing from it stands for what base records); skip
// names sources already moving.
func RebalanceMoves(ctx context.Context, place *framework.Profile, base state.Reader, listed map[types.NamespacedName]vsched.VPod,
	skip map[types.NamespacedName]bool, budget, perSource int32) []evictor.Move {
	if budget <= 0 {
		return nil
	}
	out, _ := scanRebalance(ctx, place, base, listed, skip, budget, perSource, allCandidates(base))
	return out
}

// allCandidates is every source of base, in no particular order.
func allCandidates(base state.Reader) []rebalanceCandidate {
	cands := make([]rebalanceCandidate, 0, base.NumSources())
	base.EachSourceSummary(func(key types.NamespacedName, sum state.SourceSummary) {
		cands = append(cands, rebalanceCandidate{key: key, vreplicas: sum.VReplicas, ps: sum.Placements})
	})
	return cands
}

// rebalanceCandidate is a source as the state records it, and vpod the
// source as the scan judges it (ListedOr), which scanRebalance fills once
// for each candidate with placements.
type rebalanceCandidate struct {
	key       types.NamespacedName
	vreplicas int32
	ps        []vsched.Placement
	vpod      vsched.VPod
}

// rebalanceOutcome says what looking at a source found, for RebalanceScan.
type rebalanceOutcome uint8

const (
	// rebalanceEven: no Rebalancer names a pod; nothing to look at again
	// until the source or the shape changes.
	rebalanceEven rebalanceOutcome = iota
	// rebalanceAgain: requeued, past the budget, or failed: to look at
	// next time whatever changes.
	rebalanceAgain
	// rebalanceSkipped: skipped (moving already): to look at once it is
	// not.
	rebalanceSkipped
	// rebalanceResized: growing or shrinking: to look at once the
	// lister's vreplicas change.
	rebalanceResized
	// rebalanceStuck: uneven, but no pod takes the move: to look at again
	// once room appears.
	rebalanceStuck
)

// ListedOr returns the lister's copy of the source, or, when the lister did
// not return it, a stand-in of what the state records of it (vreplicas and
// placements).
func ListedOr(listed map[types.NamespacedName]vsched.VPod, key types.NamespacedName, vreplicas int32, ps []vsched.Placement) vsched.VPod {
	if v, ok := listed[key]; ok {
		return v
	}
	return &vsched.PlainVPod{Key: key, VReplicas: vreplicas, Placements: ps}
}
