package framework

import (
	"context"
	"fmt"
)

// filter runs the filters on the pod and returns the first rejection and
// its plugin, nil when the pod passes. quiet tells the filters their
// reasons will not be read (Decision.ReasonsWanted).
func (r *run) filter(ctx context.Context, ord int32, quiet bool) (*Status, string, error) {
	d := r.d
	// Not deferred: filter runs for every candidate at every step, where a
	// deferred closure is a measurable share of a small source's decision;
	// a panicking plugin leaves the decision unusable anyway.
	d.quiet = quiet
	for _, f := range r.filters {
		st := f.Filter(ctx, d, ord)
		if st.IsSuccess() {
			continue
		}
		d.quiet = false
		if !st.IsRejected() {
			return nil, "", fmt.Errorf("%s: pod ordinal %d: %w", d.Key(), ord, st.WithPlugin(f.Name()).AsError())
		}
		// Naming the plugin through WithPlugin would copy the status for
		// every rejected pod; the name is all that is needed.
		return st, f.Name(), nil
	}
	d.quiet = false
	return nil, "", nil
}

// better reports whether candidate a (total ta) beats b (total tb). Placing,
// a tie goes to the fuller pod (best fit: partly filled pods fill up before
// another is opened), then to the lowest ordinal; removing, to the highest
// ordinal. freeB is b's Free once read: better reads it at most once and
// leaves a's there when a wins, so that choosing among n pods reads each
// pod's Free once rather than twice per comparison.
func (r *run) better(a int32, ta int64, b int32, tb int64, freeB *lazyFree) bool {
	if ta != tb {
		if ta > tb {
			freeB.ok = false
		}
		return ta > tb
	}
	if r.p.mode == Remove {
		return a > b
	}
	if !freeB.ok {
		*freeB = lazyFree{r.d.Free(b), true}
	}
	if fa := r.d.Free(a); fa != freeB.v {
		if fa < freeB.v {
			*freeB = lazyFree{fa, true}
			return true
		}
		return false
	}
	return a < b // the same Free: freeB holds the winner's either way
}

// lazyFree is a pod's Free once read (ok).
type lazyFree struct {
	v  int32
	ok bool
}
