package costestimate

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// Share is a source's vreplicas on a pod.
type Share struct {
	Source    types.NamespacedName
	VReplicas int32
}

// Pod is one pod's measured usage and who runs on it.
type Pod struct {
	Usage   corev1.ResourceList
	Sources []Share
}

// Options tune an Estimator.
type Options struct {
	// Smoothing is how much a round weighs against every earlier one, in
	// (0, 1]: each round the earlier ones are weighed by 1 - Smoothing
	// (1 keeps only the latest round). 0 means 0.3.
	Smoothing float64
	// Min and Max bound each resource's estimate per vreplica, in
	// milli-units; a resource missing from Max is bounded by
	// vsched.MaxCost.
	Min, Max map[corev1.ResourceName]int64
	// Sweeps of coordinate descent per round; 0 means 30.
	Sweeps int
}

// Estimator keeps, per resource, the least-squares system of every round
// seen (older rounds weighing less) and its non-negative solution: the
// cost per vreplica of each source that best explains the pods' usage. It
// is not safe for concurrent use.
type Estimator struct {
	opts Options
	idx  *index
	sys  systems
	// order lists the source ids in the order first seen: sweeps follow
	// it, so that results do not depend on map order.
	order []int32
}

// New returns an estimator with no estimates.
func New(opts Options) *Estimator {
	if opts.Smoothing <= 0 || opts.Smoothing > 1 {
		opts.Smoothing = 0.3
	}
	if opts.Sweeps <= 0 {
		opts.Sweeps = 30
	}
	return &Estimator{opts: opts, idx: newIndex(), sys: systems{}}
}

// Observe takes one round of measurements: the earlier rounds are weighed
// down by 1 - Smoothing, each pod adds, per resource it reports, the
// equation "the vreplicas on it times their costs make its usage", and the
// estimates are solved again (non-negative least squares by coordinate
// descent, starting from the last estimates).
func (e *Estimator) Observe(pods []Pod) {
	for _, name := range sortedNames(e.sys) {
		e.sys[name].decay(1 - e.opts.Smoothing)
	}
	for _, p := range pods {
		ids, n := e.pod(p)
		if len(ids) == 0 {
			continue
		}
		for name, q := range p.Usage {
			if e.sys[name] == nil {
				e.sys[name] = newSystem()
			}
			e.sys[name].add(ids, n, float64(q.MilliValue()))
		}
	}
	for _, name := range sortedNames(e.sys) {
		e.sys[name].solve(e.order, e.idx.neighbours, e.opts.Sweeps)
	}
}

// pod numbers a pod's sources and records who ran together.
func (e *Estimator) pod(p Pod) ([]int32, []float64) {
	ids := make([]int32, 0, len(p.Sources))
	n := make([]float64, 0, len(p.Sources))
	for _, s := range p.Sources {
		if s.VReplicas <= 0 {
			continue
		}
		id, isNew := e.idx.id(s.Source)
		if isNew {
			e.order = append(e.order, id)
		}
		ids, n = append(ids, id), append(n, float64(s.VReplicas))
	}
	for _, j := range ids {
		for _, k := range ids {
			e.idx.pair(j, k)
		}
	}
	return ids, n
}

func sortedNames(s systems) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(s))
	for name := range s {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func (e *Estimator) bound(name corev1.ResourceName, v float64) float64 {
	hi := float64(vsched.MaxCost)
	if m, ok := e.opts.Max[name]; ok {
		hi = float64(m)
	}
	return min(max(v, float64(e.opts.Min[name]), 0), hi)
}

// Cost is the source's estimated cost per vreplica, nil before any round
// measured it: a vsched.VReplicaCoster may return it where the source
// declares none. Memory is in bytes (BinarySI), other resources in
// milli-units (DecimalSI).
func (e *Estimator) Cost(key types.NamespacedName) corev1.ResourceList {
	id, ok := e.idx.ids[key]
	if !ok {
		return nil
	}
	var out corev1.ResourceList
	for _, name := range sortedNames(e.sys) {
		s := e.sys[name]
		if s.gram[[2]int32{id, id}] <= 0 {
			continue
		}
		if out == nil {
			out = corev1.ResourceList{}
		}
		milli := int64(e.bound(name, s.x[id]) + 0.5)
		if name == corev1.ResourceMemory {
			out[name] = *resource.NewQuantity(milli/1000, resource.BinarySI)
			continue
		}
		out[name] = *resource.NewMilliQuantity(milli, resource.DecimalSI)
	}
	return out
}
