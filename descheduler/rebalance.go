package descheduler

import (
	"context"
	"fmt"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// WantsRebalance reports whether a source wanting desired vreplicas, its
// placements split as split (after LimitDrainMoves), should have the moves
// a Rebalancer of place wants made now (Rebalance). Only a source that
// keeps or sheds what it has qualifies: one that grows, or moves vreplicas
// off draining pods or pods beyond the replicas, places them through the
// profile, whose filters already keep the rule, and repairing the rest
// waits until those moves are done, so a single call never moves more than
// one limit's worth.
func WantsRebalance(place *framework.Profile, split Split, desired int32) bool {
	return place != nil && place.Rebalances() && desired > 0 && split.Lost == 0 && len(split.Draining) == 0 &&
		desired <= vsched.TotalVReplicas(split.Kept)
}

// Rebalanced is what Rebalance decided.
type Rebalanced struct {
	// Placements are the source's placements after the moves, sorted by
	// ordinal; the ones given when nothing moved.
	Placements []vsched.Placement
	framework.RebalanceResult
	// Limit is the move limit applied.
	Limit int32
}

// Rebalance moves up to limit of a source's vreplicas, one at a time
// through the scheduler profile place, off the pods its Rebalancers name to
// pods that restore their rule (framework.Profile.Rebalance), against c; a
// move that finds no room stays where it was, and Stuck says why. limit is
// the drain move limit: one below 1 means none, which bounds the moves by
// the source's vreplicas. It changes neither c nor placements.
func Rebalance(ctx context.Context, place *framework.Profile, c framework.Cluster, vpod vsched.VPod, placements []vsched.Placement, limit int32) (Rebalanced, error) {
	if err := checkInput(place, framework.Place, c, vpod); err != nil {
		return Rebalanced{}, err
	}
	if limit <= 0 {
		limit = vpod.GetVReplicas()
	}
	out := Rebalanced{Placements: placements, Limit: limit}
	d, err := framework.NewDecision(framework.Place, c, vpod, placements)
	if err != nil {
		return Rebalanced{}, err
	}
	res, err := place.Rebalance(ctx, d, limit)
	if err != nil {
		return Rebalanced{}, fmt.Errorf("%s: rebalancing: %w", vpod.GetKey(), err)
	}
	out.RebalanceResult = res
	if res.Moved > 0 {
		out.Placements = d.Placements()
	}
	return out, nil
}
