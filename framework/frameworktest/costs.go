package frameworktest

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/framework"
)

// CostCluster is a Cluster whose pods also have resource capacities and
// whose sources have costs (framework.ResourceCluster):
//
//	c := frameworktest.WithResources(frameworktest.NewCluster(10).Node("n0", "").Pods("n0", "n0"),
//		frameworktest.Resources("memory", "1Gi"))
//	c.UseResources(0, frameworktest.Resources("memory", "768Mi")) // other sources' use
//	c.Cost(src.Key, frameworktest.Resources("memory", "256Mi"))   // the source's cost
type CostCluster struct {
	*Cluster
	names []corev1.ResourceName
	caps  []int64
	use   map[int32][]int64
	costs map[types.NamespacedName][]int64
	// cheapest, when set (Cheapest), is CheapestCost's answer.
	cheapest []int64
}

var _ framework.ResourceCluster = &CostCluster{}

// Resources builds a resource list from name, quantity pairs; it panics
// on a malformed quantity, as fixtures do on a mistake.
func Resources(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

// WithResources gives c's pods the capacity in each resource.
func WithResources(c *Cluster, capacity corev1.ResourceList) *CostCluster {
	cc := &CostCluster{Cluster: c, use: map[int32][]int64{}, costs: map[types.NamespacedName][]int64{}}
	for name := range capacity {
		cc.names = append(cc.names, name)
	}
	slices.Sort(cc.names)
	for _, name := range cc.names {
		q := capacity[name]
		cc.caps = append(cc.caps, q.MilliValue())
	}
	return cc
}

// vector is l in the cluster's dimensions, in milli-units.
func (c *CostCluster) vector(l corev1.ResourceList) []int64 {
	out := make([]int64, len(c.names))
	for i, name := range c.names {
		if q, ok := l[name]; ok {
			out[i] = q.MilliValue()
		}
	}
	return out
}

// UseResources sets what other sources use on the pod.
func (c *CostCluster) UseResources(ordinal int32, l corev1.ResourceList) *CostCluster {
	c.use[ordinal] = c.vector(l)
	return c
}

// Cost sets the source's cost per vreplica; nil or empty removes it.
func (c *CostCluster) Cost(key types.NamespacedName, l corev1.ResourceList) *CostCluster {
	if len(l) == 0 {
		delete(c.costs, key)
		return c
	}
	c.costs[key] = c.vector(l)
	return c
}

// ResourceNames implements framework.ResourceCluster.
func (c *CostCluster) ResourceNames() []corev1.ResourceName { return c.names }

// ResourceCapacity implements framework.ResourceCluster.
func (c *CostCluster) ResourceCapacity(dim int) int64 {
	if dim < 0 || dim >= len(c.caps) {
		return 0
	}
	return c.caps[dim]
}

// ResourceUsed implements framework.ResourceCluster.
func (c *CostCluster) ResourceUsed(ordinal int32, dim int) int64 {
	if u := c.use[ordinal]; dim >= 0 && dim < len(u) {
		return u[dim]
	}
	return 0
}

// Costed implements framework.ResourceCluster.
func (c *CostCluster) Costed() bool { return len(c.costs) > 0 }

// SourceCost implements framework.ResourceCluster.
func (c *CostCluster) SourceCost(key types.NamespacedName) []int64 { return c.costs[key] }

var _ framework.CheapestCoster = &CostCluster{}

// Cheapest sets the lowest cost per vreplica of any source, per resource,
// as other sources on the pods would make it; nil: the lowest of the
// costs set with Cost.
func (c *CostCluster) Cheapest(l corev1.ResourceList) *CostCluster {
	c.cheapest = nil
	if l != nil {
		c.cheapest = c.vector(l)
	}
	return c
}

// CheapestCost implements framework.CheapestCoster.
func (c *CostCluster) CheapestCost(dim int) int64 {
	if dim < 0 || dim >= len(c.names) {
		return 0
	}
	if c.cheapest != nil {
		return c.cheapest[dim]
	}
	first, low := true, int64(0)
	for _, cost := range c.costs {
		if first || cost[dim] < low {
			first, low = false, cost[dim]
		}
	}
	return low
}
