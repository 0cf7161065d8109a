package autoscaler

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
)

// applyDrains marks the drains for lost nodes and lowered capacity,
// whatever the size does, lifts the evictor's other drains no longer
// wanted, and requeues the sources to move.
func (a *Autoscaler) applyDrains(c *cycle) {
	for _, ord := range sortedOrdinals(c.wants) {
		w := c.wants[ord]
		// Past the size this cycle set, a pod is going away: marking it
		// would patch a pod being deleted.
		if ord >= min(c.base.Replicas(), c.dec.Target) || a.drainer.Reason(ord) == w.Reason {
			continue
		}
		c.keep(a.drainer.Mark(c.ctx, ord, w.Reason))
		switch w.Reason {
		case evictor.ReasonUnavailable:
			what := "its node has been unavailable"
			if c.base.NodeUnavailableSince(ord).IsZero() {
				what = "it has waited for a node"
			}
			a.event(c.set, corev1.EventTypeWarning, ReasonPodDraining, "pod %s: %s since %s, longer than the grace of %v; moving its vreplicas",
				vsched.PodName(a.key.Name, ord), what, c.base.PodUnavailableSince(ord).Format(time.RFC3339), c.cfg.UnavailablePodGrace)
		case evictor.ReasonOverCapacity:
			a.event(c.set, corev1.EventTypeNormal, ReasonPodDraining, "pod %s holds %d vreplica(s) over its capacity of %d; moving the excess",
				vsched.PodName(a.key.Name, ord), w.Excess, c.base.Capacity())
		}
	}
	marks := a.drainer.Marks()
	for _, ord := range sortedOrdinals(marks) {
		if _, ok := c.wants[ord]; !ok && marks[ord] != evictor.ReasonCompaction {
			c.keep(a.drainer.Unmark(c.ctx, ord))
		}
	}
	c.dec.Requeued, c.dec.Rebalancing = a.requeue(c)
}

// requeue hands the drainer the sources to requeue this cycle: those to
// evacuate, and the others within the budget (descheduler.PlanDrains); then, with what the budget leaves,
// the sources whose placements break a Rebalancer's rule and could be
// repaired now (descheduler.RebalanceMoves).
func (a *Autoscaler) requeue(c *cycle) (requeued, rebalancing []types.NamespacedName) {
	if !a.drainer.CanRequeue() {
		return nil, nil
	}
	cfg := c.cfg
	// A hot pod's shed is planned already (hotCycle), within the limits;
	// the other drains share what it leaves.
	marks := a.drainer.Marks()
	for ord, reason := range marks {
		if reason == evictor.ReasonHot {
			delete(marks, ord)
		}
	}
	plan := descheduler.PlanDrains(c.base, marks, c.wants, max(cfg.MaxMovesPerCycle-c.hotMoved, 1), cfg.MaxMovesPerSource)
	if c.hotMoved >= cfg.MaxMovesPerCycle {
		plan.Limited = nil
	}
	moves := withHotMoves(plan, c.hotMoves)
	// Evacuation has a budget of its own; the rest share the limits.
	used := c.hotMoved
	planned := make(map[types.NamespacedName]bool, len(moves))
	for _, m := range plan.Limited {
		used += m.VReplicas
	}
	for _, m := range moves {
		planned[m.Source] = true
	}
	rb := a.rebalance(c, planned, max(cfg.MaxMovesPerCycle, 1)-used)
	if len(rb) > 0 {
		var n int32
		for _, m := range rb {
			n += m.VReplicas
			rebalancing = append(rebalancing, m.Source)
		}
		c.log.Infow("vsched autoscaler: requeueing sources whose placements a rebalancing filter finds uneven",
			"sources", len(rb), "vreplicas", n)
		moves = append(moves, rb...)
	}
	if len(moves) == 0 {
		return nil, rebalancing
	}
	out, err := a.drainer.Requeue(c.ctx, moves)
	c.keep(err)
	return out, rebalancing
}

// rebalance looks for sources to rebalance within budget: every source on
// a term's first cycle, after the profile or the cluster's shape changed,
// and otherwise only those whose answer may have changed since the last
// cycle (descheduler.RebalanceScan).
func (a *Autoscaler) rebalance(c *cycle, planned map[types.NamespacedName]bool, budget int32) []evictor.Move {
	if c.place == nil || !c.place.Rebalances() {
		return nil
	}
	rb := a.rebalanceScan.Moves(c.ctx, c.place, c.base, c.listedMap(), planned, budget, max(c.cfg.MaxMovesPerSource, 1))
	if a.rebalanceScan.Checked > 0 {
		a.rebalanceScans++
	}
	return rb
}

// record finishes the cycle: the timers written, the Report completed,
// a recommendation reported once, the metrics.
func (a *Autoscaler) record(c *cycle) {
	dec := c.dec
	if c.persist && c.write {
		c.keep(a.persistTimers(c.ctx))
	}
	dec.Draining = a.drainer.Marks()
	dec.ScaleDownSince, dec.LastScaleUp = a.timers.scaleDownSince, a.timers.lastScaleUp
	if !c.write && dec.Target != c.current && dec.Target != a.lastRecommended {
		why := "recommend-only mode"
		if c.set.Annotations[AnnotationPaused] == "true" {
			why = "autoscaler paused by annotation " + AnnotationPaused
		}
		a.event(c.set, corev1.EventTypeNormal, ReasonScaleRecommended, "would scale from %d to %d replicas (%s): %s", c.current, dec.Target, why, dec.Reason)
		c.log.Infow("vsched autoscaler: recommendation only", "from", c.current, "to", dec.Target, "why", why, "reason", dec.Reason)
	}
	if !c.write {
		a.lastRecommended = dec.Target
	}
	a.metrics.record(c.ctx, *dec)
}
