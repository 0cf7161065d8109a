package autoscaler

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/usage"
)

// hotGuardSetter is the part of *statefulset.Scheduler that keeps sheds off
// pods measured near their limits; a Scheduler without it places sheds by
// its profile alone.
type hotGuardSetter interface {
	SetHotGuard(g *descheduler.HotGuard)
}

// guardSheds hands the scheduler the cycle's fresh samples against the
// hot-pod limits, with what one vreplica of each source a shed moves
// weighs (docs/autoscaler.md#where-a-shed-goes); without a fresh sample or
// a limit the guard is lifted and sheds go where the profile puts them.
func (a *Autoscaler) guardSheds(c *cycle, fresh map[int32]usage.Sample) {
	q, ok := a.sched.(hotGuardSetter)
	if !ok {
		return
	}
	c.guard = a.hotGuard(c, fresh)
	q.SetHotGuard(c.guard)
}

// hotGuard builds the guard of the cycle, nil when nothing is measured in a
// resource with a hot-pod limit.
func (a *Autoscaler) hotGuard(c *cycle, fresh map[int32]usage.Sample) *descheduler.HotGuard {
	dims := hotDims(c.base, c.cfg.HotPodMemory, c.cfg.HotPodCPU)
	if len(dims) == 0 || len(fresh) == 0 {
		return nil
	}
	age := c.cfg.UsageAge()
	g := &descheduler.HotGuard{Until: c.dec.Time.Add(age), MaxAge: age, Pods: make(map[int32]descheduler.MeasuredPod, len(fresh))}
	for _, d := range dims {
		g.Limits = append(g.Limits, descheduler.HotLimit{Resource: d.name, Milli: d.limit})
	}
	for ord, s := range fresh {
		p := descheduler.MeasuredPod{At: s.Time, Used: make([]int64, len(dims))}
		for i, d := range dims {
			p.Used[i] = -1
			if q, ok := s.Usage[d.name]; ok {
				p.Used[i] = q.MilliValue()
			}
		}
		g.Pods[ord] = p
	}
	g.Costs = a.shedWeights(c, fresh, dims)
	return g
}

// shedWeights is what one vreplica weighs, as the sheds' plans weigh them
// (hotShares), of every source a shed in progress moves.
func (a *Autoscaler) shedWeights(c *cycle, fresh map[int32]usage.Sample, dims []hotDim) map[types.NamespacedName][]int64 {
	var out map[types.NamespacedName][]int64
	for ord, h := range a.hot {
		if h.shed == nil {
			continue
		}
		held := c.base.HoldingsOn(func(o int32) bool { return o == ord })
		for _, sh := range a.hotShares(c.base, held, dims, fresh[ord]) {
			if _, moves := h.shed.keep[sh.Source]; !moves {
				continue
			}
			if out == nil {
				out = map[types.NamespacedName][]int64{}
			}
			out[sh.Source] = sh.Weight
		}
	}
	return out
}

// extraProfile is the profile the fit places extra with (the vreplicas
// the hot pods shed and those pods hold over capacity) when the cycle has
// a guard: the place profile with the guard, each of those vreplicas
// weighing the least a shedding source's does, so that the fit adds a pod
// when only pods the guard refuses have room. nil: the place profile.
func extraProfile(c *cycle, extra int32) *framework.Profile {
	if c.guard == nil || extra <= 0 {
		return nil
	}
	g := *c.guard
	g.Costs = map[types.NamespacedName][]int64{overCapacityKey: leastWeights(c.guard)}
	p, err := c.place.WithFilter(&g)
	if err != nil {
		c.log.Debugw("vsched autoscaler: the fit places the sheds without the hot-pod guard", "error", err)
		return nil
	}
	return p
}

// leastWeights is, per limit, the least one vreplica of a shedding source
// weighs (0 without one).
func leastWeights(g *descheduler.HotGuard) []int64 {
	out := make([]int64, len(g.Limits))
	first := true
	for _, w := range g.Costs {
		for i := range out {
			if i < len(w) && (first || w[i] < out[i]) {
				out[i] = w[i]
			}
		}
		first = false
	}
	return out
}
