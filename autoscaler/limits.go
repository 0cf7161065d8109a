package autoscaler

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/state"
)

// SourcePending is one source's vreplicas left without a pod.
type SourcePending struct {
	Source  types.NamespacedName
	Pending int64
}

func (p SourcePending) String() string { return fmt.Sprintf("%s: %d", p.Source, p.Pending) }

// shortfall is what the largest size the limits allow leaves pending, when
// the sources need more.
type shortfall struct {
	exceeded bool
	bySource []SourcePending
	total    int64
}

// maxListed bounds the sources an Event or a log line names.
const maxListed = 10

func (f shortfall) reason(limit int32) string {
	return fmt.Sprintf("the sources need more than max-replicas %d: %d vreplica(s) of %d source(s) would be pending at %d, so nothing is drained",
		limit, f.total, len(f.bySource), limit)
}

// signature identifies a shortfall for reporting it once.
func (f shortfall) signature() string {
	if !f.exceeded {
		return ""
	}
	return fmt.Sprint(f.total, f.bySource)
}

// sample names the first sources of the shortfall, for Events and logs.
func (f shortfall) sample() string {
	n := min(len(f.bySource), maxListed)
	parts := make([]string, 0, n+1)
	for _, p := range f.bySource[:n] {
		parts = append(parts, p.String())
	}
	if more := len(f.bySource) - n; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(parts, ", ")
}

// overLimit says whether the sources need more pods than limit, the largest
// size the limits allow, and what that size would leave pending. Only sizes
// the fit found above the limit, or a fit at the limit that still leaves
// vreplicas without a pod, are simulated again: otherwise the limit is not
// what holds the sources back.
func (m *simulator) overLimit(fr fitResult, limit int32) (shortfall, error) {
	above := fr.replicas > limit
	atLimit := fr.unplaceable > 0 && max(fr.replicas, m.current) >= limit
	if !above && !atLimit {
		return shortfall{}, nil
	}
	by, total, err := m.pendingAt(limit)
	if err != nil {
		return shortfall{}, err
	}
	// From above, the limit falls short only if it leaves more unplaced
	// than the current size does: a fit bounded by the compaction horizon
	// can be above a limit that holds everything.
	exceeded := total > 0 && (atLimit || total > fr.unplaced)
	return shortfall{exceeded: exceeded, bySource: by, total: total}, nil
}

// bound applies the shortfall to a cycle's decision: it records what would
// be pending, and, for a scale-down, keeps only the pods up to heldTop (the
// highest ordinal holding vreplicas) and turns compaction off. No size the
// limits allow holds every vreplica, so what a drain moved would find no
// room. It returns the desired size and whether compaction may drain.
func (f shortfall) bound(dec *Report, desired, heldTop int32, compacting bool) (int32, bool) {
	if !f.exceeded {
		return desired, compacting
	}
	dec.PendingAtMax, dec.Unplaceable = f.bySource, max(dec.Unplaceable, f.total)
	if current := dec.Current; desired < current {
		return min(current, max(desired, heldTop+1)), false
	}
	return desired, compacting
}

// pendingAt simulates r replicas and returns what it leaves without a pod,
// per source (sorted by key; the excess of pods over capacity is counted in
// the total only) and in total.
func (m *simulator) pendingAt(r int32) ([]SourcePending, int64, error) {
	m.record = map[types.NamespacedName]int64{}
	defer func() { m.record = nil }()
	res, err := m.run(r)
	if err != nil {
		return nil, 0, err
	}
	keys := make([]types.NamespacedName, 0, len(m.record))
	for k := range m.record {
		keys = append(keys, k)
	}
	state.SortKeys(keys)
	out := make([]SourcePending, len(keys))
	for i, k := range keys {
		out[i] = SourcePending{Source: k, Pending: m.record[k]}
	}
	return out, res.unplaced(), nil
}

// reportOverLimit logs and records an Event when the shortfall at the limit
// appears or changes, never again while it stays the same.
func (a *Autoscaler) reportOverLimit(ctx context.Context, set *appsv1.StatefulSet, f shortfall, limit int32) {
	sig := f.signature()
	if sig == a.overReported {
		return
	}
	a.overReported = sig
	if !f.exceeded {
		return
	}
	a.logger(ctx).Warnw("vsched autoscaler: the sources need more pods than max-replicas allows; nothing is drained",
		"statefulset", a.key.String(), "maxReplicas", limit, "pending", f.total, "sources", len(f.bySource), "pendingBySource", f.sample())
	a.event(set, corev1.EventTypeWarning, ReasonMaxReplicasExceeded, "%s: %s", f.reason(limit), f.sample())
}
