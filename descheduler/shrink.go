package descheduler

import (
	"context"
	"fmt"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// Shrink decides which n of a shrinking source's vreplicas leave: it runs
// the descheduler profile (remove, a framework.Remove profile) on the
// source's kept placements (SplitPlacements, after LimitDrainMoves) against
// c, and returns the placements that remain, sorted by ordinal, with the
// profile's reason when it removed fewer than n. Removing frees capacity
// and needs no pod with room, so only the profile's scores choose; the
// default policy takes from the fullest zone, node and pod, then the
// highest ordinal (plugins.DefaultRemoveConfig). When ex is non-nil
// every step is explained into it. It changes neither c nor kept.
//
// n must be within [0, the vreplicas kept]: a source does not shrink below
// nothing, and what it holds beyond kept (on draining or lost pods) leaves
// without a decision.
func Shrink(ctx context.Context, remove *framework.Profile, c framework.Cluster, vpod vsched.VPod, kept []vsched.Placement, n int32, ex *framework.Explanation) ([]vsched.Placement, string, error) {
	if err := checkInput(remove, framework.Remove, c, vpod); err != nil {
		return nil, "", err
	}
	if total := vsched.TotalVReplicas(kept); n < 0 || n > total {
		return nil, "", fmt.Errorf("descheduler: cannot remove %d vreplica(s) from %d kept", n, total)
	}
	d, err := framework.NewDecision(framework.Remove, c, vpod, kept)
	if err != nil {
		return nil, "", err
	}
	res, err := remove.Run(ctx, d, n, ex)
	if err != nil {
		return nil, "", err
	}
	return d.Placements(), res.Reason, nil
}

// checkInput refuses what a decision cannot start from: no profile, one of
// the other mode, no cluster or no source.
func checkInput(p *framework.Profile, mode framework.Mode, c framework.Cluster, vpod vsched.VPod) error {
	switch {
	case p == nil:
		return fmt.Errorf("descheduler: no %s profile", mode)
	case p.Mode() != mode:
		return fmt.Errorf("descheduler: a %s profile given where a %s profile is needed", p.Mode(), mode)
	case c == nil:
		return fmt.Errorf("descheduler: no cluster")
	case vpod == nil:
		return fmt.Errorf("descheduler: nil source")
	}
	return nil
}
