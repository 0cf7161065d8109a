package framework

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// ResourceCluster is implemented by a Cluster that knows what the sources'
// vreplicas cost (vsched.VReplicaCoster) and what a pod can hold in each
// resource. Package state implements it. Values are in milli-units of the
// resource (a Quantity's MilliValue), and sums saturate rather than wrap
// (vsched.CostSum).
type ResourceCluster interface {
	// ResourceNames lists, sorted, the resources a pod has a capacity
	// in: the dimensions a cost is counted in. Callers must not modify
	// it.
	ResourceNames() []corev1.ResourceName
	// ResourceCapacity is a pod's capacity in ResourceNames()[dim].
	ResourceCapacity(dim int) int64
	// ResourceUsed is what every source's vreplicas on the pod, committed
	// or reserved, cost in ResourceNames()[dim].
	ResourceUsed(ordinal int32, dim int) int64
	// Costed reports whether any source has a cost: while none has, a
	// decision looks none up.
	Costed() bool
	// SourceCost is the source's cost per vreplica in each dimension of
	// ResourceNames, nil when it costs nothing but its slot. Callers must
	// not modify it.
	SourceCost(key types.NamespacedName) []int64
}

// costOf sets the decision's cost from its cluster, when the cluster
// knows costs and any source has one: otherwise a type assertion and a
// call are all a decision pays.
func (d *Decision) costOf() {
	// A decision without a cost keeps no memo: ResourceFree answers 0.
	memo := d.freeMemo
	d.res, d.cost, d.cheap, d.freeMemo = nil, nil, nil, nil
	if rc, ok := d.cluster.(ResourceCluster); ok && rc.Costed() {
		if c := rc.SourceCost(d.key); c != nil {
			d.res, d.cost = rc, c
			d.cheap, _ = rc.(CheapestCoster)
			if memo == nil {
				memo = new(freeMemo)
			} else {
				*memo = freeMemo{} // a Reset decision's answers were another source's
			}
			d.freeMemo = memo
			for dim := range min(len(c), maxClassDims) {
				d.resCap[dim] = rc.ResourceCapacity(dim)
				if d.cheap != nil {
					d.cheapest[dim] = d.cheap.CheapestCost(dim)
				}
			}
		}
	}
}

// resCapacity is res.ResourceCapacity(dim), kept for the first
// dimensions.
func (d *Decision) resCapacity(dim int) int64 {
	if dim < len(d.resCap) {
		return d.resCap[dim]
	}
	return d.res.ResourceCapacity(dim)
}

// cheapestCost is cheap.CheapestCost(dim), kept for the first dimensions.
func (d *Decision) cheapestCost(dim int) int64 {
	if dim < len(d.cheapest) {
		return d.cheapest[dim]
	}
	return d.cheap.CheapestCost(dim)
}

// Cost is the source's cost per vreplica in each dimension of
// Resources().ResourceNames(), in milli-units; nil when the source costs
// nothing but its slot (or the cluster knows no costs). Callers must not
// modify it.
func (d *Decision) Cost() []int64 { return d.cost }

// Resources is the cluster's cost side, nil when Cost is nil.
func (d *Decision) Resources() ResourceCluster { return d.res }

// ResourceFree is what the pod has left in dimension dim, this decision's
// changes included: its capacity minus every source's use minus this
// source's vreplicas placed (or removed) here by the decision times its
// cost. It is negative for a pod over that capacity, and 0 when the
// decision has no cost.
func (d *Decision) ResourceFree(ordinal int32, dim int) int64 {
	// A hit compares one slot.
	if m := d.freeMemo; m != nil {
		if e := &m[uint32(ordinal)%memoSlots]; e.ord == ordinal && e.dim == dim && e.gen == uint32(d.gen) {
			return e.free
		}
	}
	return d.resourceFreeMemo(ordinal, dim)
}

// freeMemo keeps ResourceFree's answers, one per slot, each for the
// generation it was computed in: the cost filter, the cost score and
// Strands each read a candidate's at every step, the same until the
// decision changes (apply moves to the next generation; a fresh or Reset
// decision starts with none, and a generation's low 32 bits repeat only
// after more changes than a decision makes).
type freeMemo [memoSlots]freeMemoEntry

// memoSlots is freeMemo's size: more than a step's candidates, mostly.
const memoSlots = 64

type freeMemoEntry struct {
	gen  uint32
	ord  int32
	dim  int
	free int64
}

// resourceFreeMemo is ResourceFree on a miss: it computes the answer and
// keeps it.
func (d *Decision) resourceFreeMemo(ordinal int32, dim int) int64 {
	if dim < 0 || dim >= len(d.cost) {
		return 0
	}
	free := d.resourceFree(ordinal, dim)
	if m := d.freeMemo; m != nil {
		m[uint32(ordinal)%memoSlots] = freeMemoEntry{gen: uint32(d.gen), ord: ordinal, dim: dim, free: free}
	}
	return free
}

// noteResourceFree keeps free as the pod's ResourceFree in dimension 0
// for this generation, for a source with one dimension: the cost-class
// path knows it for each class's representative from the pod's use.
func (d *Decision) noteResourceFree(ordinal int32, free int64) {
	if m := d.freeMemo; m != nil && len(d.cost) == 1 {
		m[uint32(ordinal)%memoSlots] = freeMemoEntry{gen: uint32(d.gen), ord: ordinal, free: free}
	}
}

// resourceFree is ResourceFree without the memo.
func (d *Decision) resourceFree(ordinal int32, dim int) int64 {
	used := d.res.ResourceUsed(ordinal, dim)
	// Most pods the decision has not changed: no call, no hash.
	if d.changed.has(ordinal) {
		if n := d.deltaOf(ordinal); n != 0 {
			used = vsched.CostSum(used, vsched.CostTimes(n, d.cost[dim]))
		}
	}
	return vsched.CostSum(d.resCapacity(dim), -used)
}

// deltaOf is what the decision changed on the pod so far.
func (d *Decision) deltaOf(ordinal int32) int32 {
	if ordinal >= 0 && int(ordinal) < len(d.deltaAt) {
		return d.deltaAt[ordinal]
	}
	return d.delta.get(ordinal)
}

// ResourceUse describes, per dimension, the pod's use and capacity
// before the next vreplica, with this decision's changes: "slots 3/10,
// cpu 300m/1, memory 768Mi/1Gi". It is "" when the decision has no cost.
// Explanations show it for every candidate.
func (d *Decision) ResourceUse(ordinal int32) string {
	if d.cost == nil {
		return ""
	}
	var b strings.Builder
	capacity := d.cluster.Capacity()
	fmt.Fprintf(&b, "slots %d/%d", capacity-d.Free(ordinal), capacity)
	for i, name := range d.res.ResourceNames() {
		if i >= len(d.cost) {
			break
		}
		limit := d.res.ResourceCapacity(i)
		used := vsched.CostSum(limit, -d.ResourceFree(ordinal, i))
		fmt.Fprintf(&b, ", %s %s/%s", name, Milli(name, used), Milli(name, limit))
	}
	return b.String()
}

// Milli formats a value of milli-units of the resource as a quantity:
// binary units (Ki, Mi, Gi) for memory and storage, decimal otherwise.
func Milli(name corev1.ResourceName, milli int64) string {
	format := resource.DecimalSI
	if name == corev1.ResourceMemory || strings.Contains(string(name), "storage") {
		format = resource.BinarySI
	}
	if format == resource.BinarySI && milli%1000 == 0 {
		return resource.NewQuantity(milli/1000, format).String()
	}
	return resource.NewMilliQuantity(milli, format).String()
}

// WithCosts returns a copy of the Place profile p that, for a decision
// whose source has a cost (Decision.Cost), runs p with filter added last
// to its filters and score added last to its scores with weight 1: a
// filter that keeps pods within their resources and a score that weighs
// them (config.BuildProfiles adds the registry's Defaults.CostFilter and
// Defaults.CostScore). A source without a cost runs p exactly as before,
// fast path included; the costed variant is evaluated pod by pod, since
// two pods with the same free slots may differ in free memory; when p is
// grouped, one pod per cost class is evaluated (costClass), which filter
// and score must allow: for two pods on one node with the same free slots
// and the same use of every resource, neither holding the source, the same
// result. A nil
// filter or score is left out; with both nil p is returned.
func (p *Profile) WithCosts(filter FilterPlugin, score ScorePlugin) (*Profile, error) {
	if p.mode != Place {
		return nil, fmt.Errorf("only a scheduler (place) profile has a costed variant")
	}
	if filter == nil && score == nil {
		return p, nil
	}
	costed := &Profile{mode: p.mode, filters: slices.Clone(p.filters), scores: make([]scorer, 0, len(p.scores)+1)}
	for _, s := range p.scores {
		costed.scores = append(costed.scores, scorer{plugin: s.plugin, weight: s.weight})
	}
	if filter != nil {
		costed.filters = append(costed.filters, filter)
	}
	if score != nil {
		costed.scores = append(costed.scores, scorer{plugin: score, weight: int64(DefaultWeight)})
	}
	if err := costed.finish(); err != nil {
		return nil, err
	}
	costed.classed, costed.zoneClassed = p.grouped, p.zoned
	cp := *p
	cp.costed = costed
	return &cp, nil
}

// maxClassDims is the most resources a cost class compares; with more,
// the costed variant evaluates every candidate.
const maxClassDims = 4

// costClass is a class of equivalent candidates for a source with a cost:
// pods on one node with the same free slots and the same use of every
// resource, none holding the source. The base profile's plugins promise
// (EquivalenceAware) that the first pod of such a class in class order
// (the lowest ordinal, as their free slots are equal) never scores below
// another, and the cost plugins read nothing else of a pod; so evaluating
// only that first pod gives the result of evaluating them all. When the
// base profile is zone-grouped too (ZoneEquivalenceAware), the pods on the
// nodes the source does not use form classes per zone instead of per node.
type costClass struct {
	node int32
	free int32
	use  [maxClassDims]int64
}

// same reports whether k and o are one class, field by field: the
// compiler compares a struct of this size through a call to memequal.
func (k *costClass) same(o *costClass) bool {
	return k.node == o.node && k.free == o.free && k.use[0] == o.use[0] &&
		k.use[1] == o.use[1] && k.use[2] == o.use[2] && k.use[3] == o.use[3]
}

// Costed is the profile a source with a cost runs (WithCosts), nil when
// there is none.
func (p *Profile) Costed() *Profile { return p.costed }

// forDecision is the profile that runs d: the costed variant for a source
// with a cost, p otherwise.
func (p *Profile) forDecision(d *Decision) *Profile {
	if d.cost != nil && p.costed != nil {
		return p.costed
	}
	if p.grouped {
		// A grouped profile without a costed variant (a registry without
		// cost plugins) evaluates one pod per class whatever the pods'
		// use, which Decision.Strands reads: nothing strands there.
		d.cheap = nil
	}
	return p
}
