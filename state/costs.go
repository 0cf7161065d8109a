package state

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// costs is what the state knows of resource costs (vsched.VReplicaCoster):
// the dimensions a pod has a capacity in, and each pod's use in each. It
// holds nothing while no pod resource is configured, and a source without
// a cost never touches it, so that state costs nothing more than before
// costs existed.
type costs struct {
	// dims are the resources a pod has a positive capacity in, sorted;
	// dimCap[i] is that capacity in milli-units. Both are replaced, never
	// changed in place, so clones share them.
	dims   []corev1.ResourceName
	dimCap []int64
	// use[ord*len(dims)+i] is pod ord's use of dims[i] in milli-units:
	// the sum, over the sources counted on it, of their vreplicas there
	// times their cost (saturating, vsched.CostSum). Pods past its end
	// use nothing.
	use []int64
	// costed counts the sources whose counted cost is not nil; a decision
	// looks a source's cost up only while it is positive.
	costed int
	// levels[i] counts the costed sources by their counted cost in
	// dims[i], 0 included; cheap[i] is its lowest key (cheapest.go).
	levels []map[int64]int32
	cheap  []int64
	// others is how many sources the use counts that are not in the
	// state's map (a CloneFor copy's left-out sources).
	others int
	// dear[i] is levels[i]'s highest key (cheapest.go); heavy is
	// what HeavyRoom counts (heavyroom.go).
	dear  []int64
	heavy heavyRoom
}

var _ framework.ResourceCluster = &State{}

// clone copies the use, which the copy changes on its own, and shares the
// dimensions, which are replaced, never changed.
func (c costs) clone() costs {
	c.use = slices.Clone(c.use)
	c.levels = cloneLevels(c.levels)
	c.cheap = slices.Clone(c.cheap)
	c.dear = slices.Clone(c.dear)
	c.heavy = c.heavy.clone()
	return c
}

// SetPodResources sets what one pod can hold in each resource (memory,
// CPU, any named resource), as the StatefulSet's pod template requests or
// limits it, or as configured. Resources of 0 are no dimension; nil or an
// empty list means pods are bounded by their slots alone. Every source's
// cost is counted again in the new dimensions. A negative quantity or one
// too large to count in milli-units is an error, and nothing changes.
func (s *State) SetPodResources(list corev1.ResourceList) error {
	dims, caps, err := podDims(list)
	if err != nil {
		return err
	}
	if slices.Equal(dims, s.costs.dims) && slices.Equal(caps, s.costs.dimCap) {
		return nil
	}
	// opts keeps what New was given: Options is read without the lock.
	s.costs = costs{dims: dims, dimCap: caps, others: s.costs.others}
	for _, key := range s.Sources() {
		src := s.sources[key]
		if src.costList == nil {
			continue
		}
		src = s.own(key)
		src.cost = s.costVector(src.costList)
		src.counted = src.cost
		if src.counted != nil {
			s.costs.costed++
			s.costs.level(src.counted, 1)
			for _, e := range src.effective {
				s.addCost(e.ord, e.n, src.counted)
			}
		}
	}
	s.retallyHeavy()
	s.invalidate()
	return nil
}

// maxPodResource bounds a pod's capacity in one resource, in milli-units
// (2^62, about 4 EiB of memory): its use is counted against it in an
// int64.
const maxPodResource int64 = 1 << 62

// podDims turns a pod's resources into sorted dimensions with their
// capacities in milli-units.
func podDims(list corev1.ResourceList) ([]corev1.ResourceName, []int64, error) {
	var dims []corev1.ResourceName
	for name, q := range list {
		if q.Sign() < 0 {
			return nil, nil, fmt.Errorf("state: pod resource %s: %s is negative", name, q.String())
		}
		if q.Cmp(*resource.NewMilliQuantity(maxPodResource, q.Format)) > 0 {
			return nil, nil, fmt.Errorf("state: pod resource %s: %s is more than the most a pod may hold (%s)",
				name, q.String(), resource.NewMilliQuantity(maxPodResource, q.Format).String())
		}
		if q.Sign() > 0 {
			dims = append(dims, name)
		}
	}
	slices.Sort(dims)
	caps := make([]int64, len(dims))
	for i, name := range dims {
		q := list[name]
		caps[i] = q.MilliValue()
	}
	if len(dims) == 0 {
		return nil, nil, nil
	}
	return dims, caps, nil
}

// costVector is a cost in the state's dimensions, in milli-units, each
// clamped to [0, vsched.MaxCost] (Schedule refuses a source beyond them;
// a status read from elsewhere is repaired). It is nil when the cost is
// 0 in every dimension.
func (s *State) costVector(list corev1.ResourceList) []int64 {
	if len(list) == 0 || len(s.costs.dims) == 0 {
		return nil
	}
	var out []int64
	for i, name := range s.costs.dims {
		q, ok := list[name]
		if !ok || q.Sign() <= 0 {
			continue
		}
		v := vsched.MaxCost
		if q.Cmp(*resource.NewMilliQuantity(vsched.MaxCost, q.Format)) < 0 {
			v = q.MilliValue()
		}
		if out == nil {
			out = make([]int64, len(s.costs.dims))
		}
		out[i] = v
	}
	return out
}

// setCost records the cost a source declares now; recount counts it.
func (s *State) setCost(src *source, list corev1.ResourceList) {
	if len(list) == 0 {
		src.costList, src.cost = nil, nil
		return
	}
	if src.costList != nil && equalLists(src.costList, list) {
		return
	}
	src.costList = list.DeepCopy()
	src.cost = s.costVector(list)
}

func equalLists(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, q := range a {
		if r, ok := b[k]; !ok || q.Cmp(r) != 0 {
			return false
		}
	}
	return true
}

// addCost adds n vreplicas of a cost (nil: none) to a pod's use.
func (s *State) addCost(ord int32, n int32, cost []int64) {
	if cost == nil || ord < 0 {
		return
	}
	nd := len(s.costs.dims)
	if need := (int(ord) + 1) * nd; need > len(s.costs.use) {
		s.costs.use = append(s.costs.use, make([]int64, need-len(s.costs.use))...)
	}
	row := s.costs.use[int(ord)*nd : (int(ord)+1)*nd]
	for i, c := range cost {
		row[i] = vsched.CostSum(row[i], vsched.CostTimes(n, c))
	}
}

// recountCost moves a source's pods' use from the cost its old entries
// were counted with to its current cost over its new entries; recount
// calls it around its own work. It does nothing for a source that had and
// has no cost.
func (s *State) recountCost(src *source, old []entry) {
	if src.counted == nil && src.cost == nil {
		return
	}
	for _, e := range old {
		s.addCost(e.ord, -e.n, src.counted)
	}
	for _, e := range src.effective {
		s.addCost(e.ord, e.n, src.cost)
	}
	if !slices.Equal(src.counted, src.cost) {
		s.roomSeq++ // a cost that fell may have made room
		s.costs.level(src.counted, -1)
		s.costs.level(src.cost, 1)
	}
	switch {
	case src.counted == nil && src.cost != nil:
		s.costs.costed++
	case src.counted != nil && src.cost == nil:
		s.costs.costed--
	}
	src.counted = src.cost
}

// ResourceNames implements framework.ResourceCluster.
func (s *State) ResourceNames() []corev1.ResourceName { return s.costs.dims }

// ResourceCapacity implements framework.ResourceCluster.
func (s *State) ResourceCapacity(dim int) int64 {
	if dim < 0 || dim >= len(s.costs.dimCap) {
		return 0
	}
	return s.costs.dimCap[dim]
}

// ResourceUsed implements framework.ResourceCluster.
func (s *State) ResourceUsed(ord int32, dim int) int64 {
	nd := len(s.costs.dims)
	if ord < 0 || dim < 0 || dim >= nd {
		return 0
	}
	if i := int(ord)*nd + dim; i < len(s.costs.use) {
		return s.costs.use[i]
	}
	return 0
}

// Costed implements framework.ResourceCluster.
func (s *State) Costed() bool { return s.costs.costed > 0 }

// SourceCost implements framework.ResourceCluster.
func (s *State) SourceCost(key types.NamespacedName) []int64 {
	if src := s.sources[key]; src != nil {
		return src.counted
	}
	return nil
}

// CostOf is the cost the source last declared per vreplica, nil when none.
// Callers must not modify it.
func (s *State) CostOf(key types.NamespacedName) corev1.ResourceList {
	if src := s.sources[key]; src != nil {
		return src.costList
	}
	return nil
}
