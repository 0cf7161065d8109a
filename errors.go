package vsched

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
)

// ErrNotEnoughReplicas is matched (errors.Is) by every error that reports
// vreplicas left pending because no pod could take them.
var ErrNotEnoughReplicas = errors.New("not enough pod replicas to place every vreplica")

// ErrNotLeader is returned by a scheduler replica that does not currently lead
// the StatefulSet it serves. It is retryable: requeue the source.
var ErrNotLeader = errors.New("this replica is not the leader for the StatefulSet")

// PendingError reports that some of a source's vreplicas could not be placed.
// The placements returned alongside it are valid and should be stored.
type PendingError struct {
	// Key is the source.
	Key types.NamespacedName
	// Pending is how many vreplicas are not placed.
	Pending int32
	// Reason says why, in the words of the plugin that decided, when known.
	Reason string
}

func (e *PendingError) Error() string {
	msg := fmt.Sprintf("%s: %d vreplica(s) pending: %v", e.Key, e.Pending, ErrNotEnoughReplicas)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Is makes errors.Is(err, ErrNotEnoughReplicas) hold for a *PendingError.
func (e *PendingError) Is(target error) bool { return target == ErrNotEnoughReplicas }

// PendingCount returns how many vreplicas err reports pending, or 0 when err
// is not (and does not wrap) a *PendingError.
func PendingCount(err error) int32 {
	var pe *PendingError
	if errors.As(err, &pe) {
		return pe.Pending
	}
	return 0
}

// ErrStatefulSetMissing is wrapped, together with ErrNotReady, by the
// errors of Schedule while the StatefulSet is missing: not found, deleted,
// or created again with fewer replicas than the pods its sources hold and
// not sized back yet. It is retryable, like every ErrNotReady; a controller
// tells it apart to say why the source waits (embedkit.Condition's
// ReasonStatefulSetMissing).
var ErrStatefulSetMissing = errors.New("the StatefulSet is missing")

// MissingError is the error of a decision refused while the StatefulSet is
// missing. It matches ErrNotReady and ErrStatefulSetMissing (errors.Is);
// Why names the StatefulSet and says what happened to it.
type MissingError struct {
	StatefulSet types.NamespacedName
	Why         string
}

func (e *MissingError) Error() string { return ErrStatefulSetMissing.Error() + ": " + e.Why }

// Is makes the error match ErrNotReady, which every caller already retries,
// and ErrStatefulSetMissing.
func (e *MissingError) Is(target error) bool {
	return target == ErrNotReady || target == ErrStatefulSetMissing
}

// ErrNotReady is returned (wrapped) while the scheduler cannot decide safely:
// informers not synced, or the sources' committed placements not loaded yet.
// It is retryable.
var ErrNotReady = errors.New("scheduler state is not loaded yet")

// ErrStale is returned (wrapped) by Schedule for a source object older than
// one the scheduler has already seen, or for a source it was told was
// deleted: a decision made from it could undo a newer one. It is retryable:
// the controller's next read of the source is newer.
var ErrStale = errors.New("source version is older than one already seen")
