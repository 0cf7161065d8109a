package embedkit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/statefulset"
)

// The Scheduled condition: its type and reasons.
const (
	// ConditionScheduled is True when every vreplica is placed.
	ConditionScheduled = "Scheduled"
	// ReasonAllPlaced: every vreplica is placed.
	ReasonAllPlaced = "AllPlaced"
	// ReasonNotEnoughCapacity: some vreplicas wait for room; the message
	// names how many and the rule that bound them.
	ReasonNotEnoughCapacity = "NotEnoughCapacity"
	// ReasonScheduleFailed: the scheduler refused the source (a bad spec,
	// no profile); the message is its error.
	ReasonScheduleFailed = "ScheduleFailed"
	// ReasonStatefulSetMissing: the StatefulSet is not found, was deleted,
	// or was created again below the pods the sources hold and is not
	// sized back yet; the message names it. The source's placements stay
	// as they are. It is also the reason of the Warning Event a
	// controller records on the source when the condition says so first.
	ReasonStatefulSetMissing = "StatefulSetMissing"
)

// Retry delays of Decide.
const (
	// NotReadyDelay: the scheduler's views are still loading.
	NotReadyDelay = 500 * time.Millisecond
	// StaleDelay: the lister is behind what the scheduler has seen (the
	// controller's own last write, usually), or the source was deleted.
	StaleDelay = 100 * time.Millisecond
	// StatefulSetMissingDelay: the StatefulSet is missing; it comes back
	// when an upgrade or an operator creates it again, not in a moment.
	StatefulSetMissingDelay = 5 * time.Second
)

// Verdict is what a reconciler does with a Schedule result.
type Verdict struct {
	// Write says Placements and Condition go to the source's status. It is
	// false when the scheduler did not decide (not the leader, not ready,
	// a stale read); a refused source gets its Condition but keeps its
	// placements, which still run.
	Write      bool
	Placements []vsched.Placement
	// Condition is the Scheduled condition to set (when Write, or Err).
	Condition metav1.Condition
	// RequeueAfter > 0 asks for another reconcile after that long.
	RequeueAfter time.Duration
	// Err is Schedule's error when it is not retryable by waiting: return
	// it (after writing the Condition) so the controller backs off.
	Err error
	// Moved are the vreplicas this decision moved between pods, by reason
	// (statefulset.Move*); see MovedEvent.
	Moved statefulset.Moves
	// StatefulSetMissing, when set, says which StatefulSet is missing and
	// why: set Condition (ReasonStatefulSetMissing) without touching the
	// placements, record a Warning Event with that reason when the
	// condition changes, and requeue after RequeueAfter.
	StatefulSetMissing string
}

// Decide schedules vpod and returns what to do with the result.
func (s *Scheduler) Decide(ctx context.Context, vpod vsched.VPod) Verdict {
	moved := statefulset.Moves{}
	placements, err := s.Schedule(statefulset.WithMoves(ctx, moved), vpod)
	var missing *vsched.MissingError
	switch {
	case errors.Is(err, vsched.ErrNotLeader):
		return Verdict{}
	case errors.As(err, &missing):
		return Verdict{Condition: Condition(nil, err), RequeueAfter: StatefulSetMissingDelay, StatefulSetMissing: missing.Why}
	case errors.Is(err, vsched.ErrNotReady):
		return Verdict{RequeueAfter: NotReadyDelay}
	case errors.Is(err, vsched.ErrStale):
		return Verdict{RequeueAfter: StaleDelay}
	case err == nil || errors.Is(err, vsched.ErrNotEnoughReplicas):
		// Partial placements are valid: the scheduler requeues the
		// source when room appears.
		return Verdict{Write: true, Placements: placements, Condition: Condition(placements, err), Moved: moved}
	}
	return Verdict{Condition: Condition(placements, err), Err: err}
}

// Condition turns a Schedule result into the Scheduled condition: True
// with the vreplicas and pods used; False with NotEnoughCapacity naming the
// pending count and the rule that bound it; False with StatefulSetMissing
// naming the StatefulSet; False with ScheduleFailed and the error. Set ObservedGeneration yourself.
func Condition(placements []vsched.Placement, err error) metav1.Condition {
	c := metav1.Condition{Type: ConditionScheduled}
	var pe *vsched.PendingError
	var missing *vsched.MissingError
	switch {
	case err == nil:
		c.Status, c.Reason = metav1.ConditionTrue, ReasonAllPlaced
		c.Message = fmt.Sprintf("%d vreplica(s) placed on %d pod(s)", vsched.TotalVReplicas(placements), vsched.PodCount(placements))
	case errors.As(err, &missing):
		c.Status, c.Reason = metav1.ConditionFalse, ReasonStatefulSetMissing
		c.Message = missing.Why + "; the placements stay as they are"
	case errors.As(err, &pe):
		c.Status, c.Reason = metav1.ConditionFalse, ReasonNotEnoughCapacity
		c.Message = fmt.Sprintf("%d vreplica(s) pending", pe.Pending)
		if pe.Reason != "" {
			c.Message += ": " + pe.Reason
		}
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonScheduleFailed, err.Error()
	}
	return c
}

// ReasonVReplicasMoved is the reason of MovedEvent's Event.
const ReasonVReplicasMoved = "VReplicasMoved"

// MovedEvent returns the message of the Event to record on the source
// (type Normal, reason ReasonVReplicasMoved) once d's placements are
// written, when d moved vreplicas off pods that were drained or whose node
// was lost: the moves an operator asks about. Rebalancing and capacity
// moves are left to the metrics. ok is false when there is nothing to say.
func MovedEvent(d Verdict) (msg string, ok bool) {
	var parts []string
	if n := d.Moved[statefulset.MoveLostNode]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d vreplica(s) off pods whose node was lost", n))
	}
	if n := d.Moved[statefulset.MoveDrain]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d vreplica(s) off drained pods", n))
	}
	if len(parts) == 0 {
		return "", false
	}
	return "moved " + strings.Join(parts, " and ") + " to other pods", true
}
