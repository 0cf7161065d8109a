package statefulset

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// Schedule returns the source's new placements, sorted by ordinal.
//
// Existing placements stay where they are, even on pods that became
// unschedulable; only placements on ordinals at or above the StatefulSet's
// replicas, or on draining pods, are moved, and in the same result as their
// replacements, so the source's status never lacks them. One exception: a
// source whose vreplicas are all where they may stay but which breaks the
// rule of a filter that is a framework.Rebalancer (EvenZoneSpread, once a
// zone that was down is back) has up to the drain move limit of them moved,
// one at a time through the profile, to pods that restore the rule; what
// finds no room stays. When a draining
// pod's vreplicas find no room elsewhere they stay where they are. New
// vreplicas go through the scheduler profile one at a time; surplus ones are
// removed through the descheduler profile.
//
// When vreplicas are left pending it returns the partial placements with a
// *vsched.PendingError. A follower returns vsched.ErrNotLeader, and a
// scheduler not yet loaded an error wrapping vsched.ErrNotReady; both are
// retryable. While the StatefulSet is missing (deleted, or created again
// below the pods the sources hold and not sized back yet) the error wraps
// vsched.ErrNotReady and vsched.ErrStatefulSetMissing and there are no placements: what
// the sources hold stays as it is. The decision counts against capacity (as a reservation) from
// the moment Schedule returns.
func (s *Scheduler) Schedule(ctx context.Context, vpod vsched.VPod) ([]vsched.Placement, error) {
	start := time.Now()
	var moves moveCounts
	placements, err := s.schedule(ctx, vpod, &moves)
	s.metrics.record(ctx, time.Since(start), err, &moves)
	moves.report(ctx)
	return placements, err
}

// schedule is Schedule, adding the vreplicas it moved to moves by reason.
func (s *Scheduler) schedule(ctx context.Context, vpod vsched.VPod, moves *moveCounts) ([]vsched.Placement, error) {
	if err := s.admit(vpod); err != nil {
		return nil, err
	}
	key, desired := vpod.GetKey(), vpod.GetVReplicas()
	profiles := s.cfg.Profiles()
	if profiles.Place == nil || profiles.Remove == nil {
		return nil, fmt.Errorf("%s: no scheduling profile configured", key)
	}
	// Capacity freed by the source's last decision being seen written, or
	// pending left for the autoscaler, is announced after the lock is
	// released.
	var freed, pendingLeft bool
	defer func() { s.announce(freed, pendingLeft) }()
	if err := s.missingErr(); err != nil {
		// Nothing the source holds is moved while the StatefulSet is
		// missing: the answer has no placements to write.
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	ts, err := s.readTermStart(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	s.st.Lock()
	defer s.st.Unlock()
	if err := s.ensureLoaded(ctx, ts); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	if err := s.missingErr(); err != nil {
		// The term's load found the StatefulSet back below the pods the
		// sources hold.
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	now := s.cfg.Clock.Now()
	if freed, err = s.observeForDecision(ctx, vpod, now); err != nil {
		return nil, err
	}
	// A reservation still here is based on this very version (a newer one
	// resolved it just now), however old it is: the read may come from a
	// cache that has not delivered its write yet, so the decision goes on
	// from it. Only a resync from a fresh list expires it (Resync).
	base, _ := s.st.Placements(key)
	_, again := s.st.ReservationOf(key)
	placements, reason, err := s.decide(ctx, vpod, profiles, base, again, moves)
	if err != nil {
		return nil, err
	}
	pending := desired - vsched.TotalVReplicas(placements)
	pendingLeft = pending > 0
	s.reserve(vpod, base, placements, pending, now)
	out := make([]vsched.Placement, len(placements))
	copy(out, placements)
	if pending > 0 {
		if note := s.unboundNote(now); note != "" {
			reason = joinReason(reason, note)
		}
		s.logger(ctx).Debugw("vsched: vreplicas pending", "source", key.String(), "pending", pending, "reason", reason)
		return out, &vsched.PendingError{Key: key, Pending: pending, Reason: reason}
	}
	return out, nil
}

// admit checks what Schedule can refuse before taking the lock.
func (s *Scheduler) admit(vpod vsched.VPod) error {
	if vpod == nil {
		return fmt.Errorf("statefulset scheduler: nil source")
	}
	key := vpod.GetKey()
	if !s.leader.Load() {
		return fmt.Errorf("%s: %w", key, vsched.ErrNotLeader)
	}
	desired := vpod.GetVReplicas()
	if desired < 0 {
		return fmt.Errorf("%s: vreplicas is negative (%d)", key, desired)
	}
	if desired > vsched.MaxVReplicas {
		// The whole decision runs under the lock every other call and
		// informer event waits for, and its cost grows with the
		// vreplicas it places.
		return fmt.Errorf("%s: vreplicas must be at most %d (vsched.MaxVReplicas), got %d", key, vsched.MaxVReplicas, desired)
	}
	return checkCost(vpod)
}

// announce runs after Schedule released the lock: the sources waiting for
// room when the decision freed some, and the pending hook when it left
// vreplicas pending.
func (s *Scheduler) announce(freed, pendingLeft bool) {
	if freed {
		s.requeuePending()
	}
	if h := s.pendingHook.Load(); pendingLeft && h != nil {
		(*h)()
	}
	s.kickRestore() // a term's load may have found a scale-down from outside
}

// observeForDecision observes the source Schedule was given, refusing a
// stale one, and reports whether observing it freed room. Called with the
// state locked.
func (s *Scheduler) observeForDecision(ctx context.Context, vpod vsched.VPod, now time.Time) (bool, error) {
	key := vpod.GetKey()
	log := s.logger(ctx)
	usedBefore := s.st.TotalUsed()
	outcome, problems := s.st.ObserveWithProblems(vpod, now)
	if outcome == state.Stale && s.st.Tombstoned(key) && s.listsAsIs(vpod) {
		// The source was deleted and created again: the lister, which
		// no longer showed the old object when Forget was called, shows
		// this very version.
		s.st.LiftTombstone(key)
		outcome, problems = s.st.ObserveWithProblems(vpod, now)
	}
	if outcome == state.Stale {
		// Deciding from it could replace a decision made from a newer
		// version, or bring back a deleted source.
		return false, fmt.Errorf("%s at resource version %s: %w", key, vpod.GetResourceVersion(), vsched.ErrStale)
	}
	if len(problems) > 0 {
		log.Warnw("vsched: source's placements needed repair", "source", key.String(), "problems", strings.Join(problems, "; "))
	}
	if outcome == state.Overridden {
		log.Infow("vsched: source's status differs from the scheduler's reservation; the status wins", "source", key.String())
	}
	return freesRoom(outcome, usedBefore, s.st.TotalUsed()), nil
}

// decide makes the source's new placements from base, its placements as
// they count now: what stays and what moves off draining pods and pods
// beyond the replicas (descheduler.SplitPlacements), within the drain move
// limit except off pods that run nothing (limitDrainMoves); new vreplicas through the scheduler
// profile, surplus ones through the descheduler profile
// (descheduler.Shrink); and the moves a Rebalancer wants
// (descheduler.Rebalance). again says base is a reservation made from this
// version already: nothing it holds moves off a pod that exists
// (redecision.go). Called with the state locked.
func (s *Scheduler) decide(ctx context.Context, vpod vsched.VPod, profiles config.Profiles, base []vsched.Placement, again bool, moves *moveCounts) ([]vsched.Placement, string, error) {
	desired := vpod.GetVReplicas()
	split := s.keepOnHotPods(vpod.GetKey(), descheduler.SplitPlacements(s.st, base, make([]vsched.Placement, 0, len(base))))
	if again {
		split = keepReserved(split)
	}
	keptTotal := vsched.TotalVReplicas(split.Kept)
	// The limit is read only where it bounds something: the embedder's
	// source may cost an allocation, and most calls drain nothing.
	if desired > keptTotal && len(split.Draining) > 0 {
		if limit, bounded := s.moveLimitFor(vpod); bounded {
			split.Kept, split.Draining = s.limitDrainMoves(split, desired-keptTotal, limit)
			keptTotal = vsched.TotalVReplicas(split.Kept)
		}
	}
	ex, _ := ctx.Value(explainKey{}).(*framework.Explanation)
	var placements []vsched.Placement
	var reason string
	var err error
	switch {
	case desired > keptTotal:
		placements, reason, err = s.place(ctx, profiles.Place, vpod, split, desired-keptTotal, ex)
	case desired < keptTotal:
		placements, reason, err = descheduler.Shrink(ctx, profiles.Remove, s.st, vpod, split.Kept, keptTotal-desired, ex)
	default:
		placements = s.refresh(split.Kept)
	}
	if err != nil {
		return nil, "", err
	}
	if split.Lost > 0 || len(split.Draining) > 0 {
		s.countMoves(base, placements, moves)
		s.logger(ctx).Debugw("vsched: moved vreplicas off pods that are draining or beyond the StatefulSet's replicas",
			"source", vpod.GetKey().String(), "beyondReplicas", split.Lost, "drainingPods", len(split.Draining))
	}
	// Kept (or shrunk) and still breaking a Rebalancer's rule, as after a
	// zone that was down came back or a removal that left the source
	// uneven: move the excess now, in the same result.
	if !again && descheduler.WantsRebalance(profiles.Place, split, desired) {
		if placements, err = s.rebalance(ctx, vpod, profiles.Place, placements, moves); err != nil {
			return nil, "", err
		}
	}
	return placements, reason, nil
}

// place adds n vreplicas to the source's kept placements through the
// scheduler profile; the vreplicas on draining pods that find no room
// elsewhere stay there (keepUnmoved). Called with the state locked.
func (s *Scheduler) place(ctx context.Context, place *framework.Profile, vpod vsched.VPod, split descheduler.Split, n int32, ex *framework.Explanation) ([]vsched.Placement, string, error) {
	place, guard, err := s.guardShed(place, split)
	if err != nil {
		return nil, "", err
	}
	d, err := framework.NewDecision(framework.Place, s.st, vpod, split.Kept)
	if err != nil {
		return nil, "", err
	}
	res, err := place.Run(ctx, d, n, ex)
	if err != nil {
		return nil, "", err
	}
	s.noteShed(guard, d)
	return keepUnmoved(d.Placements(), split.Draining, vpod.GetVReplicas()), res.Reason, nil
}

// keepUnmoved adds to placements, sorted by ordinal, the vreplicas that
// could not leave a draining pod: they keep running there rather than going
// pending. placements come sorted (Decision.Placements): with nothing to
// add they are returned as they are, where sorting them again parsed two
// pod names per comparison (a large source's call spent more there than
// outside its Run, issue 21).
func keepUnmoved(placements, fromDraining []vsched.Placement, desired int32) []vsched.Placement {
	short := desired - vsched.TotalVReplicas(placements)
	if short <= 0 || len(fromDraining) == 0 {
		return placements
	}
	for _, p := range fromDraining {
		if short <= 0 {
			break
		}
		n := min(p.VReplicas, short)
		// The pod may already be listed, for the part the drain move
		// limit kept there.
		if q := vsched.PlacementForPod(placements, p.PodName); q != nil {
			q.VReplicas += n
		} else {
			p.VReplicas = n
			placements = append(placements, p)
		}
		short -= n
	}
	vsched.SortPlacements(placements)
	return placements
}

// rebalance makes the moves descheduler.Rebalance decides, within the
// drain move limit, counting and logging them. Called with the state
// locked.
func (s *Scheduler) rebalance(ctx context.Context, vpod vsched.VPod, place *framework.Profile, placements []vsched.Placement, moves *moveCounts) ([]vsched.Placement, error) {
	key := vpod.GetKey()
	log := s.logger(ctx)
	rctx := ctx
	if !log.Desugar().Core().Enabled(zapcore.DebugLevel) {
		// The reason a move found no room is only logged at debug level;
		// a stuck source would otherwise pay for it on every call.
		rctx = framework.WithoutReason(ctx)
	}
	res, err := descheduler.Rebalance(rctx, place, s.st, vpod, placements, s.drainMoveLimit())
	if err != nil {
		return nil, err
	}
	if res.Moved > 0 {
		moves.add(MoveRebalance, int64(res.Moved))
		log.Debugw("vsched: moved vreplicas to restore a rebalancing filter's rule", "source", key.String(),
			"plugin", res.Plugin, "moved", res.Moved, "limit", res.Limit)
	}
	if res.Stuck != "" {
		log.Debugw("vsched: a rebalancing move found no room", "source", key.String(), "why", res.Stuck)
	}
	return res.Placements, nil
}

// reserve records the decision: a reservation when it changed the
// source's placements (or renewed when it repeats one), and what it left
// pending. Called with the state locked.
func (s *Scheduler) reserve(vpod vsched.VPod, base, placements []vsched.Placement, pending int32, now time.Time) {
	key := vpod.GetKey()
	switch r, reserved := s.st.ReservationOf(key); {
	case !vsched.SamePlacements(base, placements):
		s.st.Reserve(key, vpod.GetVReplicas(), vpod.GetResourceVersion(), placements, now)
	case reserved:
		// The same decision again: the controller is about to write it
		// (again), so it counts from now, not from when it was first
		// made; otherwise a slow or retried status write could see the
		// TTL hand its capacity to another source just before the write
		// lands. The decision is still based on the version it was first
		// made from (this one is not newer, or Observe would have
		// resolved the reservation).
		s.st.Reserve(key, vpod.GetVReplicas(), r.BasedOn, placements, now)
	}
	s.st.SetPending(key, pending)
}

// listsAsIs reports whether the lister shows the source at the version
// given. It lists every source, which only a source forgotten within the
// reservation TTL and seen again costs.
func (s *Scheduler) listsAsIs(vpod vsched.VPod) bool {
	vpods, err := s.cfg.Lister()
	if err != nil {
		return false
	}
	for _, v := range vpods {
		if v != nil && v.GetKey() == vpod.GetKey() {
			return v.GetResourceVersion() == vpod.GetResourceVersion()
		}
	}
	return false
}

// refresh fills in each kept placement's current node and zone.
func (s *Scheduler) refresh(ps []vsched.Placement) []vsched.Placement {
	out := make([]vsched.Placement, len(ps))
	for i, p := range ps {
		out[i] = p
		if ord, ok := s.st.OrdinalOf(p.PodName); ok {
			if info, ok := s.st.Pod(ord); ok {
				out[i].NodeName, out[i].ZoneName = info.Node, info.Zone
			}
		}
	}
	return out
}
