package framework

import (
	"context"
	"fmt"
	"strings"
)

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

// whyNone evaluates every pod to say which plugins rejected how many,
// leading with the first plugin that rejected a pod with free capacity: the
// rule that bound the source while pods had room. It
// runs only when nothing could be chosen, so its cost does not matter.
func (r *run) whyNone(ctx context.Context) string {
	cands := r.allCandidates()
	if len(cands) == 0 {
		if r.p.mode == Remove {
			return "the source holds no vreplicas"
		}
		return "no candidate pods (none exist, or all are unbound, draining or on unschedulable nodes)"
	}
	counts := map[string]int{}
	first := map[string]string{}
	var order []string
	// roomy counts, per plugin, the pods with free capacity it rejected:
	// the rule that left vreplicas pending while pods had room.
	roomy := map[string]int{}
	binding := ""
	// The filters run quiet (no reasons built, so no allocation per pod
	// on a cluster of thousands); a filter runs again with its reasons
	// only for the pods whose message is quoted.
	r.d.quiet = true
	defer func() { r.d.quiet = false }()
	for _, ord := range cands {
		for _, f := range r.filters {
			if !f.Filter(ctx, r.d, ord).IsRejected() {
				continue
			}
			name := f.Name()
			hasRoom := r.p.mode == Place && r.d.Free(ord) > 0
			binds := hasRoom && roomy[name] == 0 && binding == ""
			if counts[name] == 0 || binds {
				first[name] = r.reasonOf(ctx, f, ord)
			}
			if counts[name] == 0 {
				order = append(order, name)
			}
			counts[name]++
			if binds {
				binding = name
			}
			if hasRoom {
				roomy[name]++
			}
			break
		}
	}
	parts := make([]string, 0, len(order))
	for _, name := range order {
		parts = append(parts, fmt.Sprintf("%s rejected %d pod(s) (e.g. %q)", name, counts[name], first[name]))
	}
	msg := fmt.Sprintf("%d candidate pod(s): %s", len(cands), strings.Join(parts, "; "))
	if binding == "" {
		return msg
	}
	return fmt.Sprintf("bound by %s, which rejected %d pod(s) that have room; %s", binding, roomy[binding], msg)
}

// reasonOf is the message of f's rejection of the pod, with its reasons.
func (r *run) reasonOf(ctx context.Context, f FilterPlugin, ord int32) string {
	quiet := r.d.quiet
	r.d.quiet = false
	defer func() { r.d.quiet = quiet }()
	return f.Filter(ctx, r.d, ord).Message()
}
