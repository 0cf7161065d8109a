package frameworktest

import (
	"context"

	"github.com/vsched/vsched/framework"
)

// ClassScorer scores pods pseudo-randomly from Seed while keeping the
// EquivalenceAware promise to the letter: a pod that neither holds the
// source nor is full scores by its node (and the source's total, so the
// preference moves as vreplicas are placed), any other pod by its ordinal
// and what it holds. It exists to find the cases real plugins rarely
// produce, where a class's representative is the only pod that can win.
type ClassScorer struct {
	Seed uint64
	// Zones widens the classes to zone classes (see
	// framework.ZoneEquivalenceAware).
	Zones bool
}

var (
	_ framework.ScorePlugin      = ClassScorer{}
	_ framework.EquivalenceAware = ClassScorer{}
)

const ClassScorerName = "FakeClassScorer"

func (ClassScorer) Name() string { return ClassScorerName }

// Score implements framework.ScorePlugin.
func (s ClassScorer) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return int64(classHash(s.Seed, s.Zones, d, ordinal) % uint64(framework.MaxScore+1)), nil
}

// EquivalentWithinClass implements framework.EquivalenceAware.
func (ClassScorer) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: when Zones
// is set, pods of one zone class score alike too.
func (s ClassScorer) EquivalentWithinZone() bool { return s.Zones }

// ClassFilter rejects about one pod in Odds, chosen like ClassScorer's
// scores: whole classes at a time.
type ClassFilter struct {
	Seed uint64
	Odds uint64
	// Zones is ClassScorer's.
	Zones bool
}

var (
	_ framework.FilterPlugin     = ClassFilter{}
	_ framework.EquivalenceAware = ClassFilter{}
)

const ClassFilterName = "FakeClassFilter"

func (ClassFilter) Name() string { return ClassFilterName }

// Filter implements framework.FilterPlugin.
func (f ClassFilter) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if f.Odds > 0 && classHash(f.Seed, f.Zones, d, ordinal)%f.Odds == 0 {
		return framework.NewStatus(framework.Unschedulable, "unlucky class")
	}
	return nil
}

// EquivalentWithinClass implements framework.EquivalenceAware.
func (ClassFilter) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: when Zones
// is set, pods of one zone class pass or fail alike too.
func (f ClassFilter) EquivalentWithinZone() bool { return f.Zones }

// classHash is equal for pods of one class (see framework.EquivalenceAware),
// and with zones for pods of one zone class.
func classHash(seed uint64, zones bool, d *framework.Decision, ordinal int32) uint64 {
	info, _ := d.Cluster().Pod(ordinal)
	if d.OnPod(ordinal) == 0 && d.Free(ordinal) > 0 {
		if zones && info.ZoneIndex >= 0 && d.OnNode(info.NodeIndex) == 0 {
			return mix(seed, 3, uint64(int64(info.ZoneIndex)), uint64(d.Total()))
		}
		return mix(seed, 1, uint64(int64(info.NodeIndex)), uint64(d.Total()))
	}
	return mix(seed, 2, uint64(int64(ordinal)), uint64(d.OnPod(ordinal)), uint64(d.Total()))
}

// mix is a small deterministic hash (splitmix64 steps).
func mix(vs ...uint64) uint64 {
	var h uint64
	for _, v := range vs {
		h += v + 0x9e3779b97f4a7c15
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
		h = (h ^ (h >> 27)) * 0x94d049bb133111eb
		h ^= h >> 31
	}
	return h
}
