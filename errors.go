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
