package statefulset

import (
	"slices"
	"sync"
	"time"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/framework"
)

// hotGuard is the autoscaler's last descheduler.HotGuard (SetHotGuard) and
// what sheds placed on its measured pods since: their samples do not show
// it yet, and two sheds in one cycle must not both count a pod's room.
type hotGuard struct {
	mu    sync.Mutex
	g     *descheduler.HotGuard
	moved map[int32]movedUse
}

// movedUse is what sheds placed on a pod, in the guard's limits, and when
// the last of them was.
type movedUse struct {
	at  time.Time
	use []int64
}

// SetHotGuard gives the scheduler the pods' measured usage against their
// hot-pod limits: while it is in force (HotGuard.Until), a decision that
// moves vreplicas off a pod draining because it is hot
// (evictor.ReasonHot) places them only on pods the guard passes, and
// what finds none stays on the hot pod. nil lifts it. What sheds placed
// on a pod is added to its measured usage until a sample taken after it
// comes. The autoscaler sets it every cycle that reads the pods' usage
// (docs/autoscaler.md#where-a-shed-goes).
func (s *Scheduler) SetHotGuard(g *descheduler.HotGuard) {
	h := &s.guard
	h.mu.Lock()
	defer h.mu.Unlock()
	old, oldG := h.moved, h.g
	h.g, h.moved = g, nil
	if g == nil || oldG == nil || !slices.Equal(g.Limits, oldG.Limits) {
		return
	}
	for ord, m := range old {
		if p, ok := g.Pods[ord]; ok && !p.At.After(m.at) {
			if h.moved == nil {
				h.moved = map[int32]movedUse{}
			}
			h.moved[ord] = m
		}
	}
}

// guardShed is the profile a decision runs: place, or, when the split
// moves vreplicas off a hot pod and a guard is in force, place with the
// guard added, and the guard (with what sheds moved since its samples).
// Called with the state locked.
func (s *Scheduler) guardShed(place *framework.Profile, split descheduler.Split) (*framework.Profile, *descheduler.HotGuard, error) {
	if len(split.Draining) == 0 || !s.shedsHot(split.Draining) {
		return place, nil, nil
	}
	g := s.guard.current(s.cfg.Clock.Now())
	if g == nil {
		return place, nil, nil
	}
	p, err := place.WithFilter(g)
	if err != nil {
		return nil, nil, err
	}
	return p, g, nil
}

// shedsHot says whether any of the placements is on a pod draining
// because it is hot.
func (s *Scheduler) shedsHot(draining []vsched.Placement) bool {
	for _, p := range draining {
		if s.drains.hot(p.PodName) {
			return true
		}
	}
	return false
}

// current is the guard in force at now with what sheds moved since its
// samples added to them, nil when there is none.
func (h *hotGuard) current(now time.Time) *descheduler.HotGuard {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.g == nil || len(h.g.Pods) == 0 || now.After(h.g.Until) {
		return nil
	}
	if len(h.moved) == 0 && !h.anyStale(now) {
		return h.g
	}
	g := *h.g
	g.Pods = make(map[int32]descheduler.MeasuredPod, len(h.g.Pods))
	for ord, p := range h.g.Pods {
		if h.stale(p, now) {
			continue
		}
		if m, ok := h.moved[ord]; ok {
			used := slices.Clone(p.Used)
			for i := range used {
				if used[i] >= 0 && i < len(m.use) {
					used[i] = vsched.CostSum(used[i], m.use[i])
				}
			}
			p.Used = used
		}
		g.Pods[ord] = p
	}
	if len(g.Pods) == 0 {
		return nil
	}
	return &g
}

// stale says whether the pod's sample is too old at now to count.
func (h *hotGuard) stale(p descheduler.MeasuredPod, now time.Time) bool {
	return h.g.MaxAge > 0 && now.Sub(p.At) > h.g.MaxAge
}

// anyStale says whether some pod's sample is too old at now to count.
func (h *hotGuard) anyStale(now time.Time) bool {
	for _, p := range h.g.Pods {
		if h.stale(p, now) {
			return true
		}
	}
	return false
}

// noteShed adds what the decision placed on measured pods to their use
// until newer samples show it. Called with the state locked.
func (s *Scheduler) noteShed(g *descheduler.HotGuard, d *framework.Decision) {
	if g == nil {
		return
	}
	cost := g.CostOf(d)
	now := s.cfg.Clock.Now()
	h := &s.guard
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.g == nil || !slices.Equal(h.g.Limits, g.Limits) {
		return
	}
	for _, p := range d.Placements() {
		ord, ok := s.st.OrdinalOf(p.PodName)
		n := d.Added(ord)
		if _, measured := h.g.Pods[ord]; !ok || !measured || n <= 0 {
			continue
		}
		if h.moved == nil {
			h.moved = map[int32]movedUse{}
		}
		m := h.moved[ord]
		if m.use == nil {
			m.use = make([]int64, len(g.Limits))
		}
		for i := range m.use {
			m.use[i] = vsched.CostSum(m.use[i], vsched.CostTimes(n, cost[i]))
		}
		m.at = now
		h.moved[ord] = m
	}
}

// HotGuard is the guard the autoscaler gave last (SetHotGuard), without
// what sheds moved since, nil when none; its Until says whether it is
// still in force.
func (s *Scheduler) HotGuard() *descheduler.HotGuard {
	h := &s.guard
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.g
}
