package frameworktest

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/framework"
)

// MaxPodsFilter rejects, when placing, pods not holding the source once the
// source holds Limit pods, as a max-pods-per-source filter would. It is
// equivalence-aware: every non-holder gets the same answer.
type MaxPodsFilter struct {
	zoneEquivalent
	Limit int
}

var (
	_ framework.FilterPlugin     = MaxPodsFilter{}
	_ framework.EquivalenceAware = MaxPodsFilter{}
)

func (MaxPodsFilter) Name() string { return MaxPodsName }

// Filter implements framework.FilterPlugin.
func (f MaxPodsFilter) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if d.Mode() == framework.Place && d.OnPod(ordinal) == 0 && d.PodsHeld() >= f.Limit {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("source already holds %d pod(s)", d.PodsHeld()))
	}
	return nil
}

// skewScore maps a skew to a score: 0 skew is MaxScore and each vreplica of
// skew costs 25.
func skewScore(skew int32) int64 {
	return max(framework.MinScore, framework.MaxScore-25*int64(skew))
}

func skewAfter(d *framework.Decision, s framework.DomainStats, current int32) int32 {
	if d.Mode() == framework.Remove {
		return s.SkewAfterRemove(current)
	}
	return s.SkewAfterAdd(current)
}

// domainSkewScore scores a pod by the skew its domain (index, < 0 for
// none: 0) leaves after the change, over the domains' stats and counts.
func domainSkewScore(d *framework.Decision, index int32, stats func() framework.DomainStats, on func(int32) int32) int64 {
	if index < 0 {
		return 0
	}
	return skewScore(skewAfter(d, stats(), on(index)))
}

// ZoneSpreadScorer prefers pods whose zone keeps the source's zone skew
// lowest after the change. Pods without a zone score 0. It is
// equivalence-aware: pods of one class share a zone.
type ZoneSpreadScorer struct{ zoneEquivalent }

var (
	_ framework.ScorePlugin      = ZoneSpreadScorer{}
	_ framework.EquivalenceAware = ZoneSpreadScorer{}
)

func (ZoneSpreadScorer) Name() string { return ZoneSpreadName }

// Score implements framework.ScorePlugin.
func (ZoneSpreadScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	info, ok := d.Cluster().Pod(ordinal)
	if !ok {
		return 0, nil
	}
	return domainSkewScore(d, info.ZoneIndex, d.ZoneStats, d.OnZone), nil
}

// NodeSpreadScorer is ZoneSpreadScorer over nodes.
type NodeSpreadScorer struct{ zoneEquivalent }

var (
	_ framework.ScorePlugin      = NodeSpreadScorer{}
	_ framework.EquivalenceAware = NodeSpreadScorer{}
)

func (NodeSpreadScorer) Name() string { return NodeSpreadName }

// Score implements framework.ScorePlugin.
func (NodeSpreadScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	info, ok := d.Cluster().Pod(ordinal)
	if !ok {
		return 0, nil
	}
	return domainSkewScore(d, info.NodeIndex, d.NodeStats, d.OnNode), nil
}

// PodSpreadScorer prefers pods that keep the source's pod skew (PodStats)
// lowest after the change. It is equivalence-aware: every pod of a class
// holds 0.
type PodSpreadScorer struct{ zoneEquivalent }

var (
	_ framework.ScorePlugin      = PodSpreadScorer{}
	_ framework.EquivalenceAware = PodSpreadScorer{}
)

func (PodSpreadScorer) Name() string { return PodSpreadName }

// Score implements framework.ScorePlugin.
func (PodSpreadScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return skewScore(skewAfter(d, d.PodStats(), d.OnPod(ordinal))), nil
}

// LowestOrdinalScorer prefers pods in use, then low ordinals when placing
// (MaxScore for a pod with less free than the capacity, else
// MaxScore*(Replicas-ordinal)/Replicas), and high ones when removing:
// MaxScore*(ordinal+1)/Replicas. It is equivalence-aware: placing, the
// first pod of a class in class order never scores below another.
type LowestOrdinalScorer struct{ zoneEquivalent }

var (
	_ framework.ScorePlugin      = LowestOrdinalScorer{}
	_ framework.EquivalenceAware = LowestOrdinalScorer{}
)

func (LowestOrdinalScorer) Name() string { return LowestOrdinalName }

// Score implements framework.ScorePlugin.
func (LowestOrdinalScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	n := int64(d.Cluster().Replicas())
	if n <= 0 {
		return 0, nil
	}
	o := min(max(int64(ordinal), 0), n-1)
	if d.Mode() == framework.Remove {
		return framework.MaxScore * (o + 1) / n, nil
	}
	if d.Free(ordinal)+d.OnPod(ordinal) < d.Cluster().Capacity() {
		// A pod other sources use: opening no new pod is as good as
		// the lowest ordinal, like LowestOrdinalPriority.
		return framework.MaxScore, nil
	}
	return framework.MaxScore * (n - o) / n, nil
}

// ZoneCounter keeps its own per-zone count of the source, built in Prepare
// and kept current by Changed, the way a plugin with precomputed state
// would. Score prefers emptier zones (10 points per vreplica) and returns an
// Error status when its count disagrees with the Decision's, so that a
// missed or doubled Changed call fails the decision.
type ZoneCounter struct{ zoneEquivalent }

var (
	_ framework.PreparePlugin    = ZoneCounter{}
	_ framework.ScorePlugin      = ZoneCounter{}
	_ framework.ChangeObserver   = ZoneCounter{}
	_ framework.EquivalenceAware = ZoneCounter{}
)

const zoneCounterKey framework.StateKey = ZoneCounterName

func (ZoneCounter) Name() string { return ZoneCounterName }

// Prepare implements framework.PreparePlugin.
func (ZoneCounter) Prepare(_ context.Context, d *framework.Decision) *framework.Status {
	counts := make([]int32, d.Cluster().NumZones())
	for _, ord := range d.Holders() {
		if info, ok := d.Cluster().Pod(ord); ok && info.ZoneIndex >= 0 {
			counts[info.ZoneIndex] += d.OnPod(ord)
		}
	}
	d.Store(zoneCounterKey, counts)
	return nil
}

// Changed implements framework.ChangeObserver.
func (ZoneCounter) Changed(d *framework.Decision, ordinal int32, delta int32) {
	v, _ := d.Load(zoneCounterKey)
	counts := v.([]int32)
	if info, ok := d.Cluster().Pod(ordinal); ok && info.ZoneIndex >= 0 {
		counts[info.ZoneIndex] += delta
	}
}

// Score implements framework.ScorePlugin.
func (ZoneCounter) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	v, ok := d.Load(zoneCounterKey)
	if !ok {
		return 0, framework.NewStatus(framework.Error, "Score called without Prepare")
	}
	counts := v.([]int32)
	info, ok := d.Cluster().Pod(ordinal)
	if !ok || info.ZoneIndex < 0 {
		return 0, nil
	}
	n := counts[info.ZoneIndex]
	if want := d.OnZone(info.ZoneIndex); n != want {
		return 0, framework.NewStatus(framework.Error, fmt.Sprintf("zone %d: counted %d, decision says %d", info.ZoneIndex, n, want))
	}
	return max(framework.MinScore, framework.MaxScore-10*int64(n)), nil
}
