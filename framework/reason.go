package framework

import "context"

type withoutReasonKey struct{}

// WithoutReason returns a context under which Profile.Run leaves
// Result.Reason empty when it stops early, unless it is explaining. Finding
// the reason evaluates every candidate pod against every filter, which
// costs more than the decision itself when many pods are full; callers
// that only count what was placed, such as the autoscaler's simulations,
// skip it.
func WithoutReason(ctx context.Context) context.Context {
	return context.WithValue(ctx, withoutReasonKey{}, true)
}

func withoutReason(ctx context.Context) bool {
	v, _ := ctx.Value(withoutReasonKey{}).(bool)
	return v
}
