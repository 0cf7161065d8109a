package descheduler

import (
	"context"
	"math"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// scanRebalance is RebalanceMoves over cands, given in any order, with what
// it found of each. Most sources keep every Rebalancer's rule, and for a
// rule about zones alone their vreplicas per zone say so
// (framework.Profile.ZoneBalanced) at a fraction of a Decision's cost; the
// others are tried in key order, as the budget requires. It fills the vpod
// of each candidate with placements, in cands itself.
func scanRebalance(ctx context.Context, place *framework.Profile, base state.Reader, listed map[types.NamespacedName]vsched.VPod,
	skip map[types.NamespacedName]bool, budget, perSource int32, cands []rebalanceCandidate) ([]evictor.Move, []rebalanceOutcome) {
	outcome := make([]rebalanceOutcome, len(cands))
	zc := newZoneCounter(base)
	var try []int
	for i := range cands {
		c := &cands[i]
		if len(c.ps) == 0 {
			continue
		}
		c.vpod = ListedOr(listed, c.key, c.vreplicas, c.ps)
		if skip[c.key] {
			outcome[i] = rebalanceSkipped
			continue
		}
		total, counted := zc.count(c.ps)
		if c.vpod.GetVReplicas() != total {
			// Growing or shrinking: its next Schedule places through
			// the profile anyway.
			outcome[i] = rebalanceResized
			continue
		}
		if counted && place.ZoneBalanced(base, zc.onZone) {
			continue // rebalanceEven
		}
		try = append(try, i)
	}
	slices.SortFunc(try, func(a, b int) int { return state.CompareKeys(cands[a].key, cands[b].key) })
	out, cut := tryRebalance(framework.WithoutReason(ctx), place, base, budget, perSource, cands, try, outcome)
	if cut >= 0 {
		// The sources from the one past the budget on are not tried.
		for i, c := range cands {
			if state.CompareKeys(c.key, cands[cut].key) >= 0 {
				outcome[i] = rebalanceAgain
			}
		}
	}
	return out, outcome
}

// tryRebalance tries Rebalance on the candidates try names, in order, on a
// scratch decision, until budget is spent, recording each outcome. cut is
// the candidate whose moves went past the budget, -1 when none did.
func tryRebalance(ctx context.Context, place *framework.Profile, base state.Reader,
	budget, perSource int32, cands []rebalanceCandidate, try []int, outcome []rebalanceOutcome) (out []evictor.Move, cut int) {
	// One decision, Reset per source: its maps are the search's main cost.
	d := &framework.Decision{}
	for _, i := range try {
		c := cands[i]
		outcome[i] = rebalanceAgain
		if err := d.Reset(framework.Place, base, c.vpod, c.ps); err != nil {
			continue
		}
		res, err := place.Rebalance(ctx, d, perSource)
		switch {
		case err != nil:
			continue
		case res.Moved == 0 && res.Stuck != "":
			outcome[i] = rebalanceStuck
			continue
		case res.Moved == 0:
			outcome[i] = rebalanceEven
			continue
		}
		if res.Moved > budget {
			return out, i
		}
		budget -= res.Moved
		out = append(out, evictor.Move{Source: c.key, VReplicas: res.Moved})
	}
	return out, -1
}

// zoneCounter counts a source's vreplicas per zone from its placements as a
// Decision does (framework.Decision.OnZone: pods the cluster knows, in a
// zone), looking each pod's zone up once per scan.
type zoneCounter struct {
	c      state.Reader
	zoneOf []int32 // by ordinal: the pod's zone index, noZone, or unknown
	onZone []int32
}

const (
	noZone      int32 = -1
	unknownZone int32 = -2
)

func newZoneCounter(c state.Reader) *zoneCounter {
	z := &zoneCounter{c: c, zoneOf: make([]int32, max(c.NumPods(), 0)), onZone: make([]int32, c.NumZones())}
	for i := range z.zoneOf {
		z.zoneOf[i] = unknownZone
	}
	return z
}

// zone is the zone index of the pod with the ordinal, noZone when the
// cluster does not know the pod or its zone.
func (z *zoneCounter) zone(ord int32) int32 {
	if int(ord) >= len(z.zoneOf) {
		return noZone
	}
	if z.zoneOf[ord] == unknownZone {
		z.zoneOf[ord] = noZone
		if info, ok := z.c.Pod(ord); ok && info.ZoneIndex >= 0 && int(info.ZoneIndex) < len(z.onZone) {
			z.zoneOf[ord] = info.ZoneIndex
		}
	}
	return z.zoneOf[ord]
}

// count fills onZone from ps and returns the vreplicas ps holds
// (vsched.TotalVReplicas). counted is false when ps is not what a Decision
// takes as it is (a negative count, a name without an ordinal, ordinals out
// of ascending order, which may hide a pod listed twice): the caller then
// builds the Decision, which reports it.
func (z *zoneCounter) count(ps []vsched.Placement) (total int32, counted bool) {
	clear(z.onZone)
	var sum int64
	counted, last := true, int32(-1)
	for _, p := range ps {
		sum += int64(p.VReplicas)
		if p.VReplicas <= 0 || !counted {
			counted = counted && p.VReplicas == 0
			continue
		}
		ord, err := vsched.OrdinalFromPodName(p.PodName)
		if err != nil || ord <= last {
			counted = false
			continue
		}
		last = ord
		if zone := z.zone(ord); zone >= 0 {
			z.onZone[zone] += p.VReplicas
		}
	}
	return int32(max(min(sum, math.MaxInt32), math.MinInt32)), counted
}
