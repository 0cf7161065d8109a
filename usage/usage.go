package usage

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Sample is one pod's measured usage.
type Sample struct {
	// Pod is the pod's name.
	Pod string
	// Usage is what the pod's containers use, summed, per resource
	// (cpu in cores, memory in bytes, as metrics.k8s.io reports them).
	Usage corev1.ResourceList
	// Time is when the measurement was taken, and Window the interval it
	// averages over (zero: an instant).
	Time   time.Time
	Window time.Duration
}

// Reader reads the latest usage of the adapter pods.
//
// Read returns the samples sorted by pod name, one per pod with a
// measurement; a pod without one is absent. It returns an error (and no
// samples) when the source of the measurements cannot be reached; the
// error wraps ErrUnavailable when that is expected to pass (the metrics
// API not served, metrics-server down). Read must be safe for concurrent
// use.
type Reader interface {
	Read(ctx context.Context) ([]Sample, error)
}

// ErrUnavailable says the measurements cannot be read now.
var ErrUnavailable = errors.New("usage: measurements unavailable")

// Stale reports whether s is older than maxAge at now. A sample from the
// future (clock skew) is not stale.
func Stale(s Sample, now time.Time, maxAge time.Duration) bool {
	return now.Sub(s.Time) > maxAge
}

// Sum adds up the usage of resource over the samples that are not stale
// at now, in milli-units, with the count of samples used. Pods absent
// from samples add nothing: the caller decides whether the ones present
// are enough (the triggers compare Sum with the requests of the same
// pods).
func Sum(samples []Sample, resource corev1.ResourceName, now time.Time, maxAge time.Duration) (milli int64, pods int) {
	for _, s := range samples {
		if Stale(s, now, maxAge) {
			continue
		}
		q, ok := s.Usage[resource]
		if !ok {
			continue
		}
		milli += q.MilliValue()
		pods++
	}
	return milli, pods
}
