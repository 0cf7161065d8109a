package autoscaler

import (
	"context"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// simSource is one source as the simulations see it.
type simSource struct {
	key        types.NamespacedName
	vpod       vsched.VPod
	want       int32
	placements []vsched.Placement
}

// overCapacityKey names the synthetic source that stands for the vreplicas
// pods hold beyond their capacity.
var overCapacityKey = types.NamespacedName{Namespace: "vsched.dev", Name: "over-capacity-excess"}

// simulator answers "with R replicas, how many of the vreplicas that need a
// pod would the scheduler profile place?" by running the profile on a clone
// of the state. Placements that exist do not move, except those the
// scheduler itself would move: on draining pods, or on ordinals at or above
// R.
type simulator struct {
	ctx     context.Context
	profile *framework.Profile
	// base is the state to simulate from: a clone, with compaction drains
	// lifted, drains decided this cycle applied, and starting pods bound
	// (BindStartingPods). It is never modified by a simulation.
	base     *state.State
	current  int32
	capacity int32
	now      time.Time
	// demand are the sources that need a pod at the current size, sorted
	// by key; holders every source holding vreplicas, sorted by maxOrd
	// (highest first) on first use, since only a smaller size needs them.
	demand  []*simSource
	holders []holderRef
	sorted  bool
	listed  func() map[types.NamespacedName]vsched.VPod
	cache   map[types.NamespacedName]*simSource
	// extra is vreplicas needing a pod on top of the sources' (the excess
	// of pods over capacity).
	extra int32
	// extraProfile places extra when the cycle has a hot-pod guard
	// (extraProfile), nil: profile does.
	extraProfile *framework.Profile
	// record, when set, collects what a run leaves unplaced per source.
	record map[types.NamespacedName]int64

	runs int
}

// simResult is one simulation's outcome.
type simResult struct {
	need, placed int64
}

func (r simResult) unplaced() int64 { return r.need - r.placed }

// run simulates the StatefulSet with r replicas: above the current size new
// pods are added (state.AddVirtualPods), below it the pods from r on are
// gone and their vreplicas must move.
func (m *simulator) run(r int32) (simResult, error) {
	m.runs++
	var res simResult
	srcs := m.sourcesAt(r)
	if len(srcs) == 0 && m.extra == 0 {
		return res, nil
	}
	keys := make([]types.NamespacedName, len(srcs))
	for i, s := range srcs {
		keys[i] = s.key
	}
	c := m.base.CloneFor(keys)
	switch {
	case r > m.current:
		c.AddVirtualPods(r - m.current)
	case r < m.current:
		c.SetReplicas(r)
	}
	kept := make([]vsched.Placement, 0, 8)
	d := &framework.Decision{} // Reset per source
	for _, s := range srcs {
		// What Schedule would keep; the rest is placed again.
		kept = descheduler.SplitPlacements(c, s.placements, kept).Kept
		n := s.want - vsched.TotalVReplicas(kept)
		if n <= 0 {
			continue
		}
		if err := d.Reset(framework.Place, c, s.vpod, kept); err != nil {
			return res, err
		}
		out, err := m.profile.Run(m.ctx, d, n, nil)
		if err != nil {
			return res, err
		}
		res.need += int64(n)
		res.placed += int64(out.Changed)
		if m.record != nil && out.Changed < n {
			m.record[s.key] += int64(n - out.Changed)
		}
		c.Reserve(s.key, s.want, "", d.Placements(), m.now)
	}
	if m.extra > 0 {
		placed, err := m.placeExtra(c)
		if err != nil {
			return res, err
		}
		res.need += int64(m.extra)
		res.placed += placed
	}
	return res, nil
}

// sourcesAt returns the sources to place at r replicas, sorted by key:
// those needing a pod now, and those holding vreplicas on the pods a
// smaller size removes.
func (m *simulator) sourcesAt(r int32) []*simSource {
	if r >= m.current {
		return m.demand
	}
	seen := make(map[types.NamespacedName]bool, len(m.demand))
	srcs := append([]*simSource(nil), m.demand...)
	for _, s := range m.demand {
		seen[s.key] = true
	}
	for _, h := range m.holdersFrom(r) {
		if !seen[h.key] {
			srcs = append(srcs, m.source(h))
		}
	}
	sort.Slice(srcs, func(i, j int) bool { return state.KeyLess(srcs[i].key, srcs[j].key) })
	return srcs
}

// placeExtra places the excess of pods over capacity on c, after the
// sources, and returns how much found a pod.
func (m *simulator) placeExtra(c *state.State) (int64, error) {
	// No source has that key: a stand-in for the excess.
	v := descheduler.ListedOr(nil, overCapacityKey, m.extra, nil)
	d, err := framework.NewDecision(framework.Place, c, v, nil)
	if err != nil {
		return 0, err
	}
	p := m.profile
	if m.extraProfile != nil {
		p = m.extraProfile
	}
	out, err := p.Run(m.ctx, d, m.extra, nil)
	if err != nil {
		return 0, err
	}
	return int64(out.Changed), nil
}

// holderRef is a source holding vreplicas, before the simulations need it.
type holderRef struct {
	key    types.NamespacedName
	maxOrd int32
	want   int32
}

// holdersFrom returns the holders with vreplicas at or above ordinal r.
func (m *simulator) holdersFrom(r int32) []holderRef {
	if !m.sorted {
		sort.Slice(m.holders, func(i, j int) bool {
			if m.holders[i].maxOrd != m.holders[j].maxOrd {
				return m.holders[i].maxOrd > m.holders[j].maxOrd
			}
			return state.KeyLess(m.holders[i].key, m.holders[j].key)
		})
		m.sorted = true
	}
	n := sort.Search(len(m.holders), func(i int) bool { return m.holders[i].maxOrd < r })
	return m.holders[:n]
}

// source builds (once) the simSource of a holder.
func (m *simulator) source(h holderRef) *simSource {
	if s, ok := m.cache[h.key]; ok {
		return s
	}
	ps, _ := m.base.Placements(h.key)
	s := &simSource{key: h.key, vpod: descheduler.ListedOr(m.listed(), h.key, h.want, ps), want: h.want, placements: ps}
	if m.cache == nil {
		m.cache = map[types.NamespacedName]*simSource{}
	}
	m.cache[h.key] = s
	return s
}

// fitResult is the fit policy's answer and what was learnt finding it.
type fitResult struct {
	// replicas is the fewest replicas holding every vreplica that can be
	// placed.
	replicas int32
	// need and unplaced are, at the current size, the vreplicas needing
	// a pod and those the profile could not place.
	need, unplaced int64
	// unplaceable is what no size up to the bound places.
	unplaceable int64
	// up says more pods are needed.
	up bool
}

// fitOptions bound the search.
type fitOptions struct {
	max int32
	// low is the lowest size the scale-down search considers (see
	// descheduler.LowestSize).
	low int32
}

// fit finds the fewest replicas that hold every vreplica the profile can
// place. With vreplicas the current size cannot place it looks upwards:
// first at the lower bound capacity gives, then, only if that falls short,
// at the upper bound (current plus one pod per unplaced vreplica, at most
// max), and it stops growing where more pods place nothing more (a source
// spread over all its partitions, for instance), by binary search between
// the two. Otherwise, or when more pods would not help, it looks downwards
// for the smallest size at which everything on the removed pods is placed
// again as the scheduler would place it, no vreplica ending up unplaced that
// the current size places.
func (m *simulator) fit(o fitOptions) (fitResult, error) {
	cur, err := m.run(m.current)
	if err != nil {
		return fitResult{}, err
	}
	res := fitResult{replicas: m.current, need: cur.need, unplaced: cur.unplaced(), unplaceable: cur.unplaced()}
	if u0 := cur.unplaced(); u0 > 0 {
		up, u, err := m.fitUp(u0, o.max)
		if err != nil {
			return res, err
		}
		if u < u0 {
			res.replicas, res.unplaceable, res.up = up, u, true
			return res, nil
		}
	}
	// Downwards: the smallest size that places as much as the current one.
	low := o.low
	if low >= m.current {
		return res, nil
	}
	best, err := m.smallest(low, m.current, cur.unplaced())
	if err != nil {
		return res, err
	}
	res.replicas = best
	return res, nil
}

// fitUp returns the smallest size above the current one that leaves the
// fewest vreplicas unplaced, and how many it leaves; u0 is how many the
// current size leaves. The first guess is the bound capacity gives: one new
// pod per capacity's worth of unplaced vreplicas. Only when that falls
// short is the upper bound (one new pod per unplaced vreplica, at most max)
// simulated, and the answer found by binary search between the sizes that
// differ.
func (m *simulator) fitUp(u0 int64, maxReplicas int32) (int32, int64, error) {
	hi := int32(min(int64(maxReplicas), int64(m.current)+u0))
	if hi <= m.current {
		return m.current, u0, nil
	}
	lo := int32(min(int64(hi), int64(m.current)+ceilDiv(u0, int64(m.capacity))))
	atLo, err := m.run(lo)
	if err != nil {
		return m.current, u0, err
	}
	uLo := atLo.unplaced()
	if uLo == 0 {
		return lo, 0, nil
	}
	if hi > lo {
		atHi, err := m.run(hi)
		if err != nil {
			return m.current, u0, err
		}
		if uHi := atHi.unplaced(); uHi < uLo {
			best, err := m.smallest(lo+1, hi, uHi)
			return best, uHi, err
		}
	}
	if uLo >= u0 {
		return m.current, u0, nil
	}
	// More pods than lo place nothing more: the smallest size up to lo
	// that places as much.
	best, err := m.smallest(m.current+1, lo, uLo)
	return best, uLo, err
}

// smallest is the smallest size in [lo, hi] whose simulation leaves at most
// u vreplicas unplaced, hi when none below it does. It assumes more pods
// never place fewer, and that hi qualifies.
func (m *simulator) smallest(lo, hi int32, u int64) (int32, error) {
	for lo < hi {
		mid := lo + (hi-lo)/2
		r, err := m.run(mid)
		if err != nil {
			return hi, err
		}
		if r.unplaced() <= u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi, nil
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// roundUp rounds n up to a multiple of k (k > 0): a size over zones.
func roundUp(n int32, k int) int32 { return int32(ceilDiv(int64(n), int64(k)) * int64(k)) }
