package descheduler

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// HotGuardName is HotGuard's name in explanations.
const HotGuardName = "HotPodGuard"

// HotLimit is a resource a pod can be hot in and its hot-pod limit, in
// milli-units (config-autoscaler's hot-pod-memory or hot-pod-cpu share of
// the pod's capacity).
type HotLimit struct {
	Resource corev1.ResourceName
	Milli    int64
}

// MeasuredPod is a pod's fresh measured usage in each of a HotGuard's
// limits (milli-units, in their order; below 0: not measured in it), and
// when it was measured.
type MeasuredPod struct {
	At   time.Time
	Used []int64
}

// HotGuard is the filter that keeps a hot pod's shed off the pods its
// moved vreplicas would make hot (docs/autoscaler.md#where-a-shed-goes):
// a pod passes unless its measured usage plus one more vreplica of the
// source (and those the decision placed there already) passes a limit.
// A pod not measured, or not in a resource, passes in it: without usage
// the scheduler places as it would without the guard. The autoscaler
// builds it from each cycle's fresh samples; the scheduler adds it to the
// decisions that move vreplicas off a hot pod (framework.Profile.WithFilter).
// It is read only while a decision runs.
type HotGuard struct {
	Limits []HotLimit
	// Pods are the measured pods by ordinal.
	Pods map[int32]MeasuredPod
	// Costs weigh one vreplica of the sources the sheds move, in the
	// limits' order, as the shed's plan weighed them (declared, estimated,
	// or a share of what the pod's usage leaves unexplained); a source
	// absent counts its cost as the decision does (Decision.Cost), else
	// nothing.
	Costs map[types.NamespacedName][]int64
	// Until is when it stops being in force: its samples are stale then.
	// MaxAge, when positive, is how old a pod's sample may be at a
	// decision before the pod counts as not measured.
	Until  time.Time
	MaxAge time.Duration
}

var _ framework.FilterPlugin = (*HotGuard)(nil)

// Name implements framework.Plugin.
func (*HotGuard) Name() string { return HotGuardName }

// Filter implements framework.FilterPlugin. The rejection is unresolvable:
// placing only adds to a pod's use within a decision.
func (g *HotGuard) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	p, ok := g.Pods[ordinal]
	if !ok {
		return nil
	}
	cost := g.CostOf(d)
	n := int64(d.Added(ordinal)) + 1
	for i, l := range g.Limits {
		if i >= len(p.Used) || p.Used[i] < 0 {
			continue
		}
		if vsched.CostSum(p.Used[i], vsched.CostTimes(int32(n), cost[i])) <= l.Milli {
			continue
		}
		if !d.ReasonsWanted() {
			return hotShort
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, g.reason(d, ordinal, i, n, cost[i]))
	}
	return nil
}

var hotShort = framework.NewStatus(framework.UnschedulableAndUnresolvable)

// reason says which limit the pod's measured usage would pass.
func (g *HotGuard) reason(d *framework.Decision, ordinal int32, i int, n, cost int64) string {
	l := g.Limits[i]
	pod := fmt.Sprintf("pod with ordinal %d", ordinal)
	if info, ok := d.Cluster().Pod(ordinal); ok {
		pod = "pod " + info.Name
	}
	return fmt.Sprintf("%s measured %s of %s; with %d vreplica(s) more at %s it passes the hot-pod limit of %s", pod,
		framework.Milli(l.Resource, g.Pods[ordinal].Used[i]), l.Resource, n, framework.Milli(l.Resource, cost), framework.Milli(l.Resource, l.Milli))
}

// CostOf is one vreplica of the decision's source in each limit: its
// weight in Costs, else its counted cost (Decision.Cost) in the resources
// the cluster counts, else 0.
func (g *HotGuard) CostOf(d *framework.Decision) []int64 {
	if c, ok := g.Costs[d.Key()]; ok && len(c) == len(g.Limits) {
		return c
	}
	out := make([]int64, len(g.Limits))
	if d.Cost() == nil {
		return out
	}
	names := d.Resources().ResourceNames()
	for i, l := range g.Limits {
		for dim, name := range names {
			if name == l.Resource && dim < len(d.Cost()) {
				out[i] = d.Cost()[dim]
			}
		}
	}
	return out
}
