package sim

import (
	"context"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched"
)

// recordResources records each pod's use of every resource: the costs of
// its vreplicas in each resource the pods have a capacity in, and its
// measured usage. Nothing when the StatefulSet has no resources and no pod
// was measured, so that results without costs stay as they were.
func (sim *simulation) recordResources(sr *StepResult, after map[string]vsched.VPod) {
	capacity := sim.s.podResources()
	// memcluster's reader never blocks: it copies what SetPodUsage set.
	samples, err := sim.cluster.UsageReader().Read(context.Background())
	if err != nil {
		samples = nil
	}
	measured := map[string]corev1.ResourceList{}
	for _, s := range samples {
		measured[s.Pod] = s.Usage
	}
	if len(capacity) == 0 && len(measured) == 0 {
		return
	}
	costs := podCosts(after, capacity)
	for i := range sr.Pods {
		p := &sr.Pods[i]
		names := map[corev1.ResourceName]bool{}
		for r := range capacity {
			names[r] = true
		}
		for r := range measured[p.Name] {
			names[r] = true
		}
		for _, r := range slices.Sorted(maps.Keys(names)) {
			p.Resources = append(p.Resources, resourceUse(r, costs[p.Name][r], capacity, measured[p.Name]))
		}
	}
}

// podCosts sums, per pod and per resource the pods have a capacity in,
// what the sources' vreplicas on it cost, in milli-units (saturating).
func podCosts(sources map[string]vsched.VPod, capacity corev1.ResourceList) map[string]map[corev1.ResourceName]int64 {
	out := map[string]map[corev1.ResourceName]int64{}
	for _, k := range slices.Sorted(maps.Keys(sources)) {
		cost := vsched.VReplicaCost(sources[k])
		for _, pl := range sources[k].GetPlacements() {
			if pl.VReplicas <= 0 {
				continue
			}
			for r, q := range cost {
				if _, ok := capacity[r]; !ok {
					continue
				}
				if out[pl.PodName] == nil {
					out[pl.PodName] = map[corev1.ResourceName]int64{}
				}
				out[pl.PodName][r] = vsched.CostSum(out[pl.PodName][r], vsched.CostTimes(pl.VReplicas, q.MilliValue()))
			}
		}
	}
	return out
}

// resourceUse is one resource of one pod, its quantities written in the
// format of the pod's capacity (1Gi: binary), else of the measurement.
func resourceUse(r corev1.ResourceName, cost int64, capacity, measured corev1.ResourceList) ResourceUse {
	u := ResourceUse{Name: string(r)}
	format := resource.DecimalSI
	if c, ok := capacity[r]; ok {
		format = c.Format
		u.Capacity = c.String()
	} else if m, ok := measured[r]; ok {
		format = m.Format
	}
	u.Cost = resource.NewMilliQuantity(cost, format).String()
	if m, ok := measured[r]; ok {
		u.Measured = resource.NewMilliQuantity(m.MilliValue(), format).String()
	}
	return u
}
