package metricsapi

import (
	"context"
	"fmt"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// call runs fn, a request of a typed metrics client (which takes no
// context), and returns when it does or when ctx ends, whichever is first.
// On ctx's end the request goes on in the background until the client's
// own timeout (rest.Config.Timeout) ends it.
func call[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// checkLen checks Fetch's arguments.
func checkLen(provider string, targets []signal.Target, out []signal.Sample) error {
	if len(out) != len(targets) {
		return fmt.Errorf("%s: Fetch: %d samples for %d targets", provider, len(out), len(targets))
	}
	return nil
}

// sampleOf is a metric value's sample: unknown unless it is a finite
// demand.
func sampleOf(q resource.Quantity, at time.Time) signal.Sample {
	v := q.AsApproximateFloat64()
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return signal.Sample{}
	}
	return signal.Sample{Known: true, Value: v, At: at}
}

// idOf is what a provider knows a target by, as signal.Target documents.
func idOf(t signal.Target) string {
	if t.ID != "" {
		return t.ID
	}
	return t.Key.String()
}

// index maps ids to their item's position; an id seen twice maps to -1
// (ambiguous, so unknown).
func index(n int, idAt func(i int) (string, bool)) map[string]int {
	m := make(map[string]int, n)
	for i := range n {
		id, ok := idAt(i)
		if !ok {
			continue
		}
		if _, seen := m[id]; seen {
			m[id] = -1
			continue
		}
		m[id] = i
	}
	return m
}
