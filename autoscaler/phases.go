package autoscaler

import (
	"fmt"
	"math"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// simulator builds the cycle's fit simulation from the sources: what each
// wants (the lister's spec; the state's last word for a source the lister
// does not return) against what it holds and keeps. It returns it with the
// vreplicas held and kept, for the policy.
//
// It walks the lister's sources and finds each in the state, rather than
// indexing them by key first: a cycle pays one lookup per source, not a
// map of them all (c.listedMap builds that only for what needs it). Walked
// from the end, the last copy of a key wins, as in that map.
func (a *Autoscaler) simulator(c *cycle, low, extra int32) (*simulator, int64) {
	base := c.base
	w := &sourceWalk{c: c, threshold: min(low, c.limit), drains: len(base.DrainingOrdinals()) > 0}
	seen := make([]bool, base.Slots())
	matched := 0
	hints := a.hints(len(c.vpods))
	var unknown map[types.NamespacedName]bool
	for i := len(c.vpods) - 1; i >= 0; i-- {
		v := c.vpods[i]
		if v == nil {
			continue
		}
		key := v.GetKey()
		sum, ok := base.SummaryAt(key, hints[i])
		if ok {
			hints[i] = sum.Slot
		}
		switch {
		case ok && !seen[sum.Slot]:
			seen[sum.Slot] = true
			matched++
			w.add(key, v, v.GetVReplicas(), sum)
		case !ok && !unknown[key]:
			if unknown == nil {
				unknown = map[types.NamespacedName]bool{}
			}
			unknown[key] = true
			if n := v.GetVReplicas(); n > 0 && n <= vsched.MaxVReplicas {
				// Not seen by the scheduler yet: it holds nothing the
				// state counts.
				w.demand = append(w.demand, &simSource{key: key, vpod: v, want: n})
			}
		}
	}
	if matched < base.NumSources() {
		base.EachSourceSummary(func(key types.NamespacedName, sum state.SourceSummary) {
			if !seen[sum.Slot] {
				w.add(key, nil, sum.VReplicas, sum)
			}
		})
	}
	sort.Slice(w.demand, func(i, j int) bool { return state.KeyLess(w.demand[i].key, w.demand[j].key) })
	return &simulator{ctx: framework.WithoutReason(c.ctx), profile: c.place, base: base, current: c.current, capacity: base.Capacity(),
		now: c.dec.Time, demand: w.demand, holders: w.holders, listed: c.listedMap, extra: extra, extraProfile: extraProfile(c, extra)}, w.held
}

// hints returns a.slotHints sized for n listed sources, -1 (none) for a
// position not seen before.
func (a *Autoscaler) hints(n int) []int32 {
	for len(a.slotHints) < n {
		a.slotHints = append(a.slotHints, -1)
	}
	a.slotHints = a.slotHints[:n]
	return a.slotHints
}

// sourceWalk collects, source by source, the simulation's demand and
// holders and the vreplicas held.
type sourceWalk struct {
	c *cycle
	// threshold: only a source holding vreplicas at or above it may have
	// to move. drains says some pod drains.
	threshold int32
	drains    bool
	demand    []*simSource
	holders   []holderRef
	held      int64
}

// add counts a source the state knows, wanting want (listed is the
// lister's copy, nil when the lister did not return it).
func (w *sourceWalk) add(key types.NamespacedName, listed vsched.VPod, want int32, sum state.SourceSummary) {
	base, current := w.c.base, w.c.current
	kept := sum.Held
	if w.drains || sum.MaxOrdinal >= current {
		// Otherwise it keeps all it holds: its holdings need not be
		// read.
		kept = 0
		for _, h := range base.HeldOn(key) {
			if h.Ordinal < current && !base.Draining(h.Ordinal) {
				kept += h.VReplicas
			}
		}
	}
	w.held += int64(min(max(want, 0), kept))
	// Schedule refuses a source above MaxVReplicas: it is no demand.
	if want > kept && want <= vsched.MaxVReplicas {
		if listed == nil {
			listed = descheduler.ListedOr(nil, key, sum.VReplicas, sum.Placements)
		}
		w.demand = append(w.demand, &simSource{key: key, vpod: listed, want: want, placements: sum.Placements})
	}
	if sum.MaxOrdinal >= w.threshold {
		// Only a size from low up is simulated, and the largest the
		// limits allow (overLimit): the sources holding nothing at or
		// above either never have to move.
		w.holders = append(w.holders, holderRef{key: key, maxOrd: sum.MaxOrdinal, want: want})
	}
}

// bounded turns the policy's answer into the size wanted: never below the
// fit nor min-replicas, a change rounded to the zones, at most the limit.
// When the sources need more than the limit allows it reports what would be
// pending, and turns compaction off (shortfall.bound).
func (a *Autoscaler) bounded(c *cycle, m *simulator, fr fitResult, rec Recommendation) (int32, shortfall, error) {
	dec := c.dec
	desired := max(rec.Replicas, fr.replicas, c.cfg.MinReplicas)
	if c.zoneSpread && c.zones > 1 && desired > 0 && desired != c.current {
		// Any change lands on a multiple of the zones, so that every
		// zone offers the same capacity; a size that needs no change is
		// not grown just to round it.
		desired = roundUp(desired, c.zones)
	}
	desired = min(desired, c.limit)
	dec.Pending, dec.Unplaced, dec.Unplaceable = fr.need, fr.unplaced, fr.unplaceable
	over, err := m.overLimit(fr, c.limit)
	dec.Simulations = m.runs
	if err != nil {
		return 0, over, err
	}
	a.reportOverLimit(c.ctx, c.set, over, c.limit)
	desired, c.compacting = over.bound(dec, desired, c.base.HighestUsedOrdinal(), c.compacting)
	dec.Desired, dec.Fit = desired, fr.replicas
	dec.Target = c.current
	return desired, over, nil
}

// scaleUpReason says why the StatefulSet grows.
func (a *Autoscaler) scaleUpReason(c *cycle, fr fitResult, rec Recommendation) string {
	switch {
	case fr.up:
		return fmt.Sprintf("pending %d vreplica(s)", fr.need)
	case c.current < c.cfg.MinReplicas:
		return fmt.Sprintf("below min replicas %d", c.cfg.MinReplicas)
	}
	return rec.Reason
}

// scaleUp grows the StatefulSet towards desired, at most by the scale-up
// rate, cancelling any compaction.
func (a *Autoscaler) scaleUp(c *cycle, desired int32, why string) {
	dec, current := c.dec, c.current
	target := desired
	if r := c.cfg.MaxScaleUpRate; r > 0 {
		limit := max(current+1, int32(math.Ceil(float64(current)*r)))
		if c.zoneSpread && c.zones > 1 {
			// A rate-limited step still lands on a multiple of the
			// zones: from 0 it gives every zone a pod at once, so a
			// zone spread is not held to the one zone bound first.
			limit = roundUp(limit, c.zones)
		}
		target = min(target, limit)
	}
	dec.Action, dec.Target, dec.Reason = ActionScaleUp, target, why
	a.cancelCompaction(c, math.MaxInt32)
	a.clearScaleDownSince(c)
	if !c.write {
		return
	}
	ok, rv, err := a.writeScale(c.ctx, current, target)
	switch {
	case err != nil:
		c.keep(fmt.Errorf("autoscaler: scaling StatefulSet %s to %d: %w", a.key, target, err))
	case ok:
		dec.Written = true
		a.sched.Grown(target, rv)
		a.timers.lastScaleUp, c.persist = dec.Time, true
		a.event(c.set, corev1.EventTypeNormal, ReasonScaledUp, "scaled from %d to %d replicas: %s", current, target, why)
		a.metrics.change(c.ctx, "up")
		c.log.Infow("vsched autoscaler: scaled up", "from", current, "to", target, "reason", why)
	}
}

// clearScaleDownSince ends a run of cycles in which fewer pods would do.
func (a *Autoscaler) clearScaleDownSince(c *cycle) {
	if !a.timers.scaleDownSince.IsZero() {
		a.timers.scaleDownSince, c.persist = time.Time{}, true
	}
}

// scaleDownWhenDue starts or continues a run of cycles in which desired
// pods would do, and shrinks (or compacts) once the stabilization window and
// the scale-up cooldown are over.
func (a *Autoscaler) scaleDownWhenDue(c *cycle, desired int32) {
	dec, now := c.dec, c.dec.Time
	if a.timers.scaleDownSince.IsZero() {
		a.timers.scaleDownSince, c.persist = now, true
	}
	// Demand that came back part of the way lifts the drains below the
	// new target.
	a.cancelCompaction(c, desired)
	windowEnds := a.timers.scaleDownSince.Add(c.cfg.StabilizationWindow)
	cooldownEnds := a.timers.lastScaleUp.Add(c.cfg.ScaleDownCooldown)
	switch {
	case now.Before(windowEnds):
		dec.Action = ActionHold
		dec.Reason = fmt.Sprintf("%d replica(s) would do since %s; stabilizing until %s", desired, a.timers.scaleDownSince.Format(time.RFC3339), windowEnds.Format(time.RFC3339))
	case !a.timers.lastScaleUp.IsZero() && now.Before(cooldownEnds):
		dec.Action = ActionHold
		dec.Reason = fmt.Sprintf("%d replica(s) would do; scale-up cooldown until %s", desired, cooldownEnds.Format(time.RFC3339))
	default:
		a.scaleDown(c, desired)
	}
}

// scaleDown applies a scale-down the window and cooldown allow: drain what
// must move (compaction), and shrink past every pod left without a committed
// or reserved placement.
func (a *Autoscaler) scaleDown(c *cycle, desired int32) {
	dec, current := c.dec, c.current
	heldTop := c.base.HighestUsedOrdinal()
	shrinkTo := min(max(desired, heldTop+1), current)
	dec.Action, dec.Target = ActionScaleDown, shrinkTo
	dec.Reason = "idle capacity"
	if c.compacting && desired <= heldTop {
		a.compact(c, desired)
		if shrinkTo == current {
			dec.Action = ActionCompact
		}
	} else if shrinkTo == current {
		dec.Action = ActionHold
		dec.Reason = fmt.Sprintf("%d replica(s) would do, but %s holds vreplicas and compaction is off", desired, vsched.PodName(a.key.Name, heldTop))
	}
	if shrinkTo >= current || !c.write {
		return
	}
	a.shrink(c.ctx, dec, c.set, current, shrinkTo, c.keep)
}

// compact drains every pod a compaction to desired pods removes, at once:
// what moves goes below the target, never to a pod drained later.
func (a *Autoscaler) compact(c *cycle, desired int32) {
	marked, moving := descheduler.CompactionDrains(c.base, desired, a.drainer.Marks())
	c.dec.Reason = "compaction"
	if !c.write {
		return
	}
	for _, ord := range marked {
		c.keep(a.drainer.Mark(c.ctx, ord, evictor.ReasonCompaction))
	}
	if len(marked) > 0 {
		a.event(c.set, corev1.EventTypeNormal, ReasonCompactionStarted, "sources fit on %d pod(s): draining %s to move %d vreplica(s) to lower ordinals",
			desired, ordinals(a.key.Name, marked), moving)
		c.log.Infow("vsched autoscaler: compaction", "target", desired, "draining", marked, "vreplicas", moving)
	}
}

// cancelCompaction lifts the compaction drains below the ordinal given:
// demand came back.
func (a *Autoscaler) cancelCompaction(c *cycle, below int32) {
	marks := a.drainer.Marks()
	var lifted []int32
	for _, ord := range sortedOrdinals(marks) {
		if marks[ord] != evictor.ReasonCompaction || ord >= below {
			continue
		}
		lifted = append(lifted, ord)
		if c.write {
			c.keep(a.drainer.Unmark(c.ctx, ord))
		}
	}
	if len(lifted) > 0 {
		c.dec.CompactionCancelled = true
		if c.write {
			a.event(c.set, corev1.EventTypeNormal, ReasonCompactionCancelled, "demand returned: drain of %s cancelled", ordinals(a.key.Name, lifted))
		}
	}
}
