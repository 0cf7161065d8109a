package framework

import (
	"context"
	"fmt"
)

// Rebalancer is implemented by filter plugins whose rule a source's running
// placements can come to break without any decision being made: the rule is
// judged against the cluster as it is now, and the cluster changed under the
// placements. EvenZoneSpread is the example: while a zone is down its
// vreplicas go to the other zones, and once it is back the source is uneven
// over the zones counted again.
//
// Misplaced names a pod holding one of the source's vreplicas that should
// move for the rule to hold again, or returns false when the placements keep
// the rule. Profile.Rebalance takes one vreplica off that pod and places it
// again through the whole profile, so the move itself obeys every filter;
// Misplaced only says where the excess is.
//
// Misplaced must depend on nothing but the source (its VPod and
// placements) and the cluster's shape: the zones counted (SchedulableZones,
// GrowthZones), Replicas, and the node and zone of each pod. The
// descheduler looks at a source again only when one of those changed
// (descheduler.RebalanceScan); room matters only to whether the move finds
// a pod, and a source whose move found none is looked at again once room
// appears.
type Rebalancer interface {
	FilterPlugin
	Misplaced(ctx context.Context, d *Decision) (ordinal int32, ok bool)
}

// ZoneRebalancer is a Rebalancer whose rule is about the source's
// vreplicas per zone alone. Counting those from a source's placements costs
// far less than a Decision, so a caller looking at many sources
// (descheduler.RebalanceScan) asks Profile.ZoneBalanced first and builds a
// Decision only for the sources some Rebalancer may find uneven.
type ZoneRebalancer interface {
	Rebalancer
	// ZoneBalanced reports whether a source holding onZone[z] vreplicas in
	// the zone of index z of c (a zone past the slice holds none) keeps
	// the rule. It promises that Misplaced then names no pod for a
	// decision with those counts (Decision.OnZone) against c.
	ZoneBalanced(c Cluster, onZone []int32) bool
}

// ZoneBalanced reports whether Rebalance moves nothing for a source holding
// onZone[z] vreplicas in the zone of index z of c: the profile has no
// Rebalancer, or each is a ZoneRebalancer finding the counts balanced.
// false says only that a Decision is needed to know.
func (p *Profile) ZoneBalanced(c Cluster, onZone []int32) bool {
	for _, rb := range p.rebalancers {
		zr, ok := rb.(ZoneRebalancer)
		if !ok || !zr.ZoneBalanced(c, onZone) {
			return false
		}
	}
	return true
}

// Rebalances reports whether a filter of the profile is a Rebalancer: only
// then can Rebalance move anything.
func (p *Profile) Rebalances() bool {
	return len(p.rebalancers) > 0
}

// RebalanceResult is what Rebalance did.
type RebalanceResult struct {
	// Moved is how many vreplicas changed pods.
	Moved int32
	// Plugin is the Rebalancer that asked for the last move considered.
	Plugin string
	// Stuck says why a move a Rebalancer asked for was not made (no pod
	// the profile accepts has room), "" when none was refused.
	Stuck string
}

// Rebalance moves at most limit of the source's vreplicas, one at a time,
// off the pods the profile's Rebalancers name, placing each again through
// the profile. It stops when no Rebalancer names a pod, when a vreplica
// finds no other pod (it stays where it was), or at the limit. d must be a
// Place decision made from the source's current placements; its Placements
// are the result.
//
// Every move strictly lowers what a Rebalancer measures, as long as its
// Misplaced names a pod only while the source breaks its rule and its Filter
// then admits only the domains that repair it; the limit bounds the work
// regardless.
func (p *Profile) Rebalance(ctx context.Context, d *Decision, limit int32) (RebalanceResult, error) {
	var res RebalanceResult
	if p.mode != Place {
		return res, fmt.Errorf("a %s profile cannot rebalance", p.mode)
	}
	if d.mode != Place {
		return res, fmt.Errorf("rebalancing needs a %s decision, not %s", Place, d.mode)
	}
	for res.Moved < limit && len(p.rebalancers) > 0 {
		from, name, ok := p.misplaced(ctx, d)
		if !ok {
			break
		}
		res.Plugin = name
		held := d.OnPod(from)
		if held <= 0 {
			return res, fmt.Errorf("%s named pod ordinal %d, which holds none of the source's vreplicas", name, from)
		}
		d.apply(from, -1)
		r, err := p.Run(ctx, d, 1, nil)
		if err != nil {
			return res, err
		}
		if r.Changed == 0 {
			d.apply(from, 1)
			res.Stuck = fmt.Sprintf("%s asked to move a vreplica off %s, but no other pod takes it: %s", name, podName(d, from), r.Reason)
			break
		}
		if d.OnPod(from) == held {
			// Back where it was: nothing better exists now.
			res.Stuck = fmt.Sprintf("%s asked to move a vreplica off %s, but the profile put it back", name, podName(d, from))
			break
		}
		res.Moved++
	}
	return res, nil
}

// misplaced asks the Rebalancers in order; the first that names a pod wins.
func (p *Profile) misplaced(ctx context.Context, d *Decision) (int32, string, bool) {
	for _, rb := range p.rebalancers {
		if ord, ok := rb.Misplaced(ctx, d); ok {
			return ord, rb.Name(), true
		}
	}
	return -1, "", false
}
