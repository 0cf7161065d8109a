package autoscaler

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/internal/lib/bounded"
	"github.com/vsched/vsched/state"
	"github.com/vsched/vsched/usage"
)

// hotPod is what the autoscaler remembers of one pod's measured usage
// (docs/autoscaler.md#hot-pods).
type hotPod struct {
	// since is the time of the first sample over the limit in the current
	// run of such samples; zero: the pod is not hot.
	since time.Time
	// notBefore: samples taken at or before it predate the pod's last
	// shed and do not count.
	notBefore time.Time
	// shed is the shed in progress, nil when none.
	shed *hotShed
}

// hotShed is a shed in progress: when it started, and what each source it
// moves keeps on the pod once it has moved.
type hotShed struct {
	at   time.Time
	keep map[types.NamespacedName]int32
}

// moveQuotaSetter is the part of *statefulset.Scheduler that bounds a
// source's next moves to the shed's plan; a Scheduler without it moves
// what the drain move limit allows.
type moveQuotaSetter interface {
	SetMoveQuota(key types.NamespacedName, n int32)
	ClearMoveQuota(keys ...types.NamespacedName)
}

// hotDim is one resource a pod can be hot in: its index in the state's
// dimensions and the limit, in milli-units.
type hotDim struct {
	name  corev1.ResourceName
	dim   int
	limit int64
}

// hotDims are the resources config-autoscaler watches that the pods have
// a capacity (a limit) in.
func hotDims(base *state.State, memShare, cpuShare float64) []hotDim {
	var out []hotDim
	for d, name := range base.ResourceNames() {
		share := map[corev1.ResourceName]float64{corev1.ResourceMemory: memShare, corev1.ResourceCPU: cpuShare}[name]
		if share > 0 {
			out = append(out, hotDim{name: name, dim: d, limit: int64(share * float64(base.ResourceCapacity(d)))})
		}
	}
	return out
}

// hotCycle follows every pod's usage: a pod over a limit in a fresh sample
// starts (or continues) a run; anything else (under, stale, missing, the
// read failing) ends it. A pod hot for the grace sheds (shedPod); a shed
// in progress is kept wanted until its moves are made (or the grace passes
// again), then the pod starts over from samples taken after it.
func (a *Autoscaler) hotCycle(c *cycle, fresh map[int32]usage.Sample) {
	now, cfg := c.dec.Time, c.cfg
	dims := hotDims(c.base, cfg.HotPodMemory, cfg.HotPodCPU)
	replicas := c.base.Replicas()
	busy := a.shedSources()
	for ord := range a.hot {
		if ord >= replicas {
			a.endShed(ord)
			delete(a.hot, ord)
		}
	}
	for ord := int32(0); ord < replicas; ord++ {
		h := a.hot[ord]
		if _, other := c.wants[ord]; other || (c.base.Draining(ord) && a.drainer.Reason(ord) != evictor.ReasonHot) {
			// Draining for another reason: all it holds leaves anyway.
			a.endShed(ord)
			delete(a.hot, ord)
			continue
		}
		if h != nil && h.shed != nil {
			c.dec.HotPods = append(c.dec.HotPods, ord)
			a.followShed(c, ord, h)
			continue
		}
		over := overLimits(fresh, ord, h, dims)
		if over == nil {
			delete(a.hot, ord)
			continue
		}
		if h == nil {
			h = &hotPod{}
			a.hot[ord] = h
		}
		if h.since.IsZero() {
			// A sample from the future (clock skew) counts from now.
			h.since = fresh[ord].Time
			if h.since.After(now) {
				h.since = now
			}
		}
		c.dec.HotPods = append(c.dec.HotPods, ord)
		if now.Sub(h.since) >= cfg.HotPodGrace && c.write && a.drainer.CanRequeue() {
			a.shedPod(c, ord, h, dims, over, fresh[ord], busy)
		}
	}
	a.metrics.hot(c.ctx, len(c.dec.HotPods))
}

// overLimits is how far the pod's fresh sample is over each limit (0
// where it is not), nil when it is over none or its usage is unknown.
func overLimits(fresh map[int32]usage.Sample, ord int32, h *hotPod, dims []hotDim) []int64 {
	s, ok := fresh[ord]
	if !ok || len(dims) == 0 || (h != nil && !s.Time.After(h.notBefore)) {
		return nil
	}
	var over []int64
	for i, d := range dims {
		q, ok := s.Usage[d.name]
		if !ok {
			continue
		}
		if v := q.MilliValue() - d.limit; v > 0 {
			if over == nil {
				over = make([]int64, len(dims))
			}
			over[i] = v
		}
	}
	return over
}

// shedPod plans the fewest vreplicas that bring the pod under its limits
// (descheduler.PlanShed, within the cycle's move limits), records the
// shed, bounds each source's next moves to its share of the plan, and
// wants the pod drained for it. A plan that moves a source busy shedding
// off another pod waits (shedSources).
func (a *Autoscaler) shedPod(c *cycle, ord int32, h *hotPod, dims []hotDim, over []int64, s usage.Sample, busy map[types.NamespacedName]bool) {
	held := c.base.HoldingsOn(func(o int32) bool { return o == ord })
	shares := a.hotShares(c.base, held, dims, s)
	budget := max(c.cfg.MaxMovesPerCycle-c.hotMoved, 0)
	if budget == 0 || len(shares) == 0 {
		return
	}
	moves, covered := descheduler.PlanShed(shares, over, budget, c.cfg.MaxMovesPerSource)
	if len(moves) == 0 {
		return
	}
	for _, m := range moves {
		if busy[m.Source] {
			c.log.Debugw("vsched autoscaler: hot pod waits for another pod's shed of a source it would move", "pod", vsched.PodName(a.key.Name, ord), "source", m.Source.String())
			return
		}
	}
	for _, m := range moves {
		busy[m.Source] = true
	}
	shed := &hotShed{at: c.dec.Time, keep: map[types.NamespacedName]int32{}}
	var total int32
	var what []string
	for _, m := range moves {
		for _, x := range held {
			if x.Source == m.Source {
				shed.keep[m.Source] = x.VReplicas - m.VReplicas
			}
		}
		total += m.VReplicas
		what = append(what, fmt.Sprintf("%d of %s", m.VReplicas, m.Source))
	}
	h.shed = shed
	name := vsched.PodName(a.key.Name, ord)
	note := ""
	if !covered {
		note = " (as many as the move limits allow)"
	}
	a.podEvent(name, ReasonPodHot, "pod %s over its hot-pod limit (%s) since %s, longer than the grace of %v: moving %d vreplica(s)%s: %s",
		name, overText(dims, over, s), h.since.UTC().Format(time.RFC3339), c.cfg.HotPodGrace, total, note, strings.Join(what, ", "))
	c.log.Infow("vsched autoscaler: hot pod sheds vreplicas", "pod", name, "vreplicas", total, "moves", what, "covered", covered)
	a.metrics.shed(c.ctx, int64(total))
	c.dec.Shed += total
	a.followShed(c, ord, h)
}

// followShed keeps a shed going: while a planned source holds more on the
// pod than the plan leaves it, the pod stays wanted drained and the source
// is requeued with the rest as its quota. The shed ends when every source
// has moved, or after a grace without that (no room anywhere): the drain
// is lifted, and only samples taken after that count.
func (a *Autoscaler) followShed(c *cycle, ord int32, h *hotPod) {
	shed := h.shed
	var moves []evictor.Move
	var left int32
	for key, keep := range shed.keep {
		if n := holdingOf(c.base, key, ord) - keep; n > 0 {
			moves = append(moves, evictor.Move{Source: key, VReplicas: n})
			left += n
		}
	}
	if left == 0 || c.dec.Time.Sub(shed.at) > c.cfg.HotPodGrace {
		a.endShed(ord)
		h.shed, h.since, h.notBefore = nil, time.Time{}, c.dec.Time
		return
	}
	sortMoves(moves)
	c.wants[ord] = descheduler.Drain{Reason: evictor.ReasonHot, Excess: left}
	if q, ok := a.sched.(moveQuotaSetter); ok {
		for _, m := range moves {
			q.SetMoveQuota(m.Source, m.VReplicas)
		}
	}
	c.hotMoves = append(c.hotMoves, moves...)
	c.hotMoved += left
}

// endShed lifts the move quotas of the pod's shed, if any.
func (a *Autoscaler) endShed(ord int32) {
	h := a.hot[ord]
	if h == nil || h.shed == nil {
		return
	}
	if q, ok := a.sched.(moveQuotaSetter); ok {
		keys := make([]types.NamespacedName, 0, len(h.shed.keep))
		for k := range h.shed.keep {
			keys = append(keys, k)
		}
		q.ClearMoveQuota(keys...)
	}
}

// hotShares weighs each source's vreplicas on the pod in each hot
// resource: its cost as the state counts it (declared, or measured for a
// source that opts in), else its measured estimate; the sources with
// neither share what the others do not explain of the pod's usage
// equally.
func (a *Autoscaler) hotShares(base *state.State, held []state.Holding, dims []hotDim, s usage.Sample) []descheduler.HotShare {
	shares := make([]descheduler.HotShare, 0, len(held))
	known := make([]int64, len(dims))
	unknown := make([]int64, len(dims))
	for _, x := range held {
		sh := descheduler.HotShare{Source: x.Source, VReplicas: x.VReplicas, Weight: make([]int64, len(dims))}
		for i, d := range dims {
			if w, ok := a.weightOf(base, x.Source, d.name); ok {
				sh.Weight[i] = w
				known[i] = vsched.CostSum(known[i], vsched.CostTimes(x.VReplicas, w))
			} else {
				sh.Weight[i] = -1
				unknown[i] += int64(x.VReplicas)
			}
		}
		shares = append(shares, sh)
	}
	for i, d := range dims {
		if unknown[i] == 0 {
			continue
		}
		q := s.Usage[d.name]
		each := max(q.MilliValue()-known[i], 0) / unknown[i]
		for j := range shares {
			if shares[j].Weight[i] < 0 {
				shares[j].Weight[i] = each
			}
		}
	}
	return shares
}

// weightOf is one of the source's vreplicas' cost in the resource, in
// milli-units, and whether it is known.
func (a *Autoscaler) weightOf(base *state.State, key types.NamespacedName, name corev1.ResourceName) (int64, bool) {
	if q, ok := base.CostOf(key)[name]; ok {
		return q.MilliValue(), true
	}
	if a.estimates != nil {
		if q, ok := a.estimates.EstimatedCost(key)[name]; ok {
			return q.MilliValue(), true
		}
	}
	return 0, false
}

// holdingOf is what the source holds on the pod.
func holdingOf(base *state.State, key types.NamespacedName, ord int32) int32 {
	for _, h := range base.HeldOn(key) {
		if h.Ordinal == ord {
			return h.VReplicas
		}
	}
	return 0
}

// overText renders each resource over its limit: "memory 950Mi > 900Mi".
func overText(dims []hotDim, over []int64, s usage.Sample) string {
	var parts []string
	for i, d := range dims {
		if over[i] <= 0 {
			continue
		}
		used := s.Usage[d.name]
		limit := resource.NewMilliQuantity(d.limit, used.Format)
		if d.name == corev1.ResourceMemory {
			limit = resource.NewQuantity(d.limit/1000, resource.BinarySI)
		}
		parts = append(parts, fmt.Sprintf("%s %s > %s", d.name, used.String(), limit.String()))
	}
	return strings.Join(parts, ", ")
}

// podEvent records an Event on one of the StatefulSet's pods.
func (a *Autoscaler) podEvent(pod, reason, format string, args ...any) {
	if a.cfg.Recorder == nil {
		return
	}
	obj := &corev1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: a.key.Namespace, Name: pod}}
	a.cfg.Recorder.Event(obj, corev1.EventTypeWarning, reason, bounded.Cut(fmt.Sprintf(format, args...), bounded.EventLen))
}

// sortMoves orders moves by source key, so that requeues come in a stable
// order.
func sortMoves(moves []evictor.Move) {
	sort.Slice(moves, func(i, j int) bool { return state.KeyLess(moves[i].Source, moves[j].Source) })
}

// withHotMoves is the plan's moves, evacuation first, then the hot pods'
// sheds, then the other drains; a source is requeued once.
func withHotMoves(plan descheduler.DrainPlan, hot []evictor.Move) []evictor.Move {
	if len(hot) == 0 {
		return plan.Moves()
	}
	seen := map[types.NamespacedName]bool{}
	var out []evictor.Move
	for _, group := range [][]evictor.Move{plan.Evacuate, hot, plan.Limited} {
		for _, m := range group {
			if !seen[m.Source] {
				seen[m.Source] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// resetHot forgets what an earlier term followed: its sheds' quotas are
// lifted, and a pod must be hot for a whole grace again.
func (a *Autoscaler) resetHot() {
	for ord := range a.hot {
		a.endShed(ord)
	}
	a.hot = map[int32]*hotPod{}
}
