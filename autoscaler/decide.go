package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// Reconcile runs one autoscaler cycle: it observes the StatefulSet, the
// sources and the scheduler's state, simulates the scheduler profile to
// find the size that fits every vreplica, asks the policy, and scales,
// drains or holds. Its Report says what it decided and did. An error means a write
// failed; conditions under which no safe decision exists (not leader,
// informers not synced, lister failing) are a Hold with the reason, and
// no error.
func (a *Autoscaler) Reconcile(ctx context.Context) (Report, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clock.Now()
	a.lastCycle = now
	cfg := a.config()
	pol := a.policy(cfg)
	s := a.sched
	dec := Report{Time: now, Policy: pol.Name()}
	dec.Current = s.Replicas()
	if !s.IsLeader() {
		a.leading = false
		return hold(dec, "not the leader")
	}
	if !a.leading {
		// A new term: what this replica remembered from an earlier one
		// is stale. The StatefulSet's and pods' annotations say where
		// the previous leader stopped.
		a.leading = true
		a.timers = scaleTimers{}
		a.triggers.reset() // its points were another term's
		a.overReported = ""
		a.drainer.Reset()
		a.rebalanceScan.Reset()
		a.resetHot()
	}
	if to, ok := s.RestoreSize(); ok {
		return a.restore(ctx, dec, to)
	}
	if why := s.NotReady(); why != "" {
		// An unsynced view shows too little: pods or sources missing
		// from it would look like idle capacity.
		return hold(dec, why+"; holding the current size")
	}
	set, newTerm, err := a.readStatefulSet(ctx)
	if err != nil {
		return hold(dec, fmt.Sprintf("reading the StatefulSet failed (%v); holding the current size", err))
	}
	write := set.Annotations[AnnotationPaused] != "true" && !cfg.RecommendOnly
	dec.RecommendOnly = !write
	vpods, err := s.ListSources()
	if err != nil {
		return hold(dec, fmt.Sprintf("listing sources failed (%v); holding the current size", err))
	}
	place := s.PlaceProfile()
	if place == nil {
		return hold(dec, "no scheduling profile configured")
	}
	if write {
		if _, err := a.drainer.Adopt(ctx, newTerm); err != nil {
			a.logger(ctx).Warnw("vsched autoscaler: reconciling drain marks with the pods failed", "statefulset", a.key.String(), "error", err)
		}
	}
	snap, err := s.CloneLoaded(ctx)
	if err != nil {
		return hold(dec, fmt.Sprintf("scheduler state not loaded (%v); holding the current size", err))
	}
	if to, ok := s.RestoreSize(); ok {
		// The term's load, just now, found the StatefulSet created
		// again below what the sources hold.
		return a.restore(ctx, dec, to)
	}
	return a.decide(ctx, dec, cfg, pol, place, set, vpods, snap, write)
}

// readStatefulSet reads the StatefulSet for a cycle, reports a rejected
// configuration on it, and, on a term's first cycle, reads it from the API
// server and loads the timers from its annotations (newTerm).
func (a *Autoscaler) readStatefulSet(ctx context.Context) (set *appsv1.StatefulSet, newTerm bool, err error) {
	read := a.statefulSet
	if !a.timers.loaded {
		// The lister may not show yet what the previous leader wrote a
		// moment ago: read the StatefulSet from the API server once.
		read = a.statefulSetFromAPI
	}
	if set, err = read(ctx); err != nil {
		return nil, false, err
	}
	if err := a.takeConfigProblem(); err != nil {
		a.logger(ctx).Errorw("vsched autoscaler: configuration rejected; the last good one stays in force", "statefulset", a.key.String(), "error", err)
		a.event(set, corev1.EventTypeWarning, ReasonInvalidAutoscalerConfig, "autoscaler configuration rejected, the last good one stays in force: %v", err)
	}
	if a.timers.loaded {
		return set, false, nil
	}
	a.timers = scaleTimers{
		loaded:         true,
		scaleDownSince: parseTime(set.Annotations[AnnotationScaleDownSince]),
		lastScaleUp:    parseTime(set.Annotations[AnnotationLastScaleUp]),
	}
	return set, true, nil
}

// cycle is what decide's phases share: the cycle's inputs, what the drain
// phase found, and what the write phases collect.
type cycle struct {
	ctx   context.Context
	log   *zap.SugaredLogger
	cfg   *config.AutoscalerConfig
	place *framework.Profile
	set   *appsv1.StatefulSet
	// base is the cycle's clone of the scheduler's state, made the
	// simulations' base (simulationBase).
	base *state.State
	// vpods are the lister's sources; listed indexes them by key, built
	// on first use (listedMap).
	vpods  []vsched.VPod
	listed map[types.NamespacedName]vsched.VPod
	// wants are the drains wanted for other reasons than compaction.
	wants map[int32]descheduler.Drain
	// hotMoves are the hot pods' sheds' moves to requeue, hotMoved the
	// vreplicas they move (hotCycle).
	hotMoves []evictor.Move
	hotMoved int32
	// guard is the cycle's measured usage against the hot-pod limits
	// (guardSheds), nil when none.
	guard *descheduler.HotGuard
	dec   *Report
	write bool
	// compacting says compaction may drain pods this cycle.
	compacting bool
	// current is the size decided from; limit the largest the limits
	// allow.
	current, limit int32
	zones          int
	zoneSpread     bool
	// persist says the timers changed and go to the annotations.
	persist bool
	errs    []error
}

// keep collects a write's error; the cycle goes on and returns them all.
func (c *cycle) keep(err error) {
	if err != nil {
		c.errs = append(c.errs, err)
	}
}

// decide runs a cycle's phases on base, the scheduler's state cloned for it:
// the drains wanted, the fit simulation, the policy and rounding, the size
// write (or hold), the drains and requeues, and the record.
func (a *Autoscaler) decide(ctx context.Context, dec Report, cfg *config.AutoscalerConfig, pol Policy, place *framework.Profile,
	set *appsv1.StatefulSet, vpods []vsched.VPod, base *state.State, write bool) (Report, error) {
	c := &cycle{ctx: ctx, log: a.logger(ctx).With("statefulset", a.key.String()), cfg: cfg, place: place, set: set,
		base: base, vpods: vpods, dec: &dec, write: write, current: base.Replicas(),
		limit: max(cfg.MaxReplicas, cfg.MinReplicas), zones: len(base.SchedulableNodeZones()), zoneSpread: place.SpreadsOverZones()}
	dec.Current = c.current
	marks := a.drainer.Marks()
	c.compacting = a.drainer.CanRequeue() && cfg.Compaction
	c.wants = descheduler.Drains(base, marks, dec.Time, cfg.UnavailablePodGrace)
	a.usageCycle(c)
	dec.UnboundPods = a.unboundPods(c)
	dec.Unavailable = base.UnavailableVReplicas()
	extra := simulationBase(base, marks, c.wants, dec.Time, cfg.UnavailablePodGrace)
	dec.FreeCapacity = base.FreeCapacity()
	low := descheduler.LowestSize(base, marks, c.compacting, cfg.MaxMovesPerCycle)
	m, held := a.simulator(c, low, extra)
	fr, err := m.fit(fitOptions{max: max(cfg.MaxReplicas, 0), low: low})
	dec.Simulations = m.runs
	if err != nil {
		return hold(dec, fmt.Sprintf("simulating the scheduler profile failed (%v); holding the current size", err))
	}
	obs := Observation{Now: dec.Time, Current: c.current, Capacity: base.Capacity(), Held: held, Pending: fr.need,
		Unplaceable: fr.unplaceable, Fit: fr.replicas, Zones: c.zones, ZoneSpread: c.zoneSpread, Config: cfg}
	rec := withHeadroom(cfg, obs, pol.Recommend(ctx, obs))
	desired, over, err := a.bounded(c, m, fr, rec)
	if err != nil {
		return hold(dec, fmt.Sprintf("simulating the scheduler profile failed (%v); holding the current size", err))
	}
	switch {
	case desired > c.current:
		a.scaleUp(c, desired, a.scaleUpReason(c, fr, rec))
	case desired < c.current:
		a.scaleDownWhenDue(c, desired)
	default:
		dec.Action, dec.Reason = ActionNone, rec.Reason
		a.clearScaleDownSince(c)
		a.cancelCompaction(c, math.MaxInt32)
	}
	if note := unboundNote(dec.UnboundPods); note != "" {
		dec.Reason += "; " + note
	}
	if over.exceeded {
		dec.Reason = over.reason(c.limit) + "; " + dec.Reason
		if dec.Action == ActionNone {
			dec.Action = ActionHold
		}
	}
	if write {
		a.applyDrains(c)
	}
	a.record(c)
	return dec, errors.Join(c.errs...)
}

// listedMap is the lister's sources by key, made on first use.
func (c *cycle) listedMap() map[types.NamespacedName]vsched.VPod {
	if c.listed == nil {
		c.listed = listedByKey(c.vpods)
	}
	return c.listed
}

// listedByKey indexes the lister's sources.
func listedByKey(vpods []vsched.VPod) map[types.NamespacedName]vsched.VPod {
	listed := make(map[types.NamespacedName]vsched.VPod, len(vpods))
	for _, v := range vpods {
		if v != nil {
			listed[v.GetKey()] = v
		}
	}
	return listed
}

// simulationBase makes base the simulations' base: compaction drains lifted
// (the cycle decides them again), other drains as wanted now, starting pods
// bound (not those unbound for grace or longer: no node takes them). It returns the vreplicas pods hold over capacity, which need a pod
// on top of the sources'.
func simulationBase(base *state.State, marks map[int32]string, wants map[int32]descheduler.Drain, now time.Time, grace time.Duration) (extra int32) {
	for ord, reason := range marks {
		if _, ok := wants[ord]; !ok && evictor.Owned(reason) {
			base.ClearDraining(ord)
		}
	}
	for ord, w := range wants {
		switch w.Reason {
		case evictor.ReasonUnavailable:
			base.SetDraining(ord, true)
		case evictor.ReasonOverCapacity, evictor.ReasonHot:
			base.ClearDraining(ord)
			extra += w.Excess
		}
	}
	base.BindStartingPods(now, grace)
	return extra
}
