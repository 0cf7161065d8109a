package costestimate

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// Forget drops a source that is gone (deleted): its estimate, and its part
// in the rounds seen, where its vreplicas stay counted at its last
// estimate, so that the sources it ran beside keep theirs. A source of the
// same name seen later starts from nothing, and the estimator holds no more
// sources than are known at once. An unknown key is ignored.
func (e *Estimator) Forget(key types.NamespacedName) {
	id, ok := e.idx.ids[key]
	if !ok {
		return
	}
	for _, name := range sortedNames(e.sys) {
		e.sys[name].fold(id, e.idx.neighbours[id])
	}
	e.idx.drop(id)
	e.order = slices.DeleteFunc(e.order, func(i int32) bool { return i == id })
}

// Known lists the sources seen and not forgotten, in the order first seen.
func (e *Estimator) Known() []types.NamespacedName {
	out := make([]types.NamespacedName, 0, len(e.order))
	for _, id := range e.order {
		out = append(out, e.idx.keys[id])
	}
	return out
}

// fold takes source j out of the system with its cost fixed at its last
// estimate: in the normal equations of the sources it shared a pod with,
// what it explained of those pods' usage moves to the right-hand side.
func (s *system) fold(j int32, neighbours []int32) {
	xj := s.x[j]
	for _, k := range neighbours {
		if k == j {
			continue
		}
		s.rhs[k] -= s.gram[[2]int32{k, j}] * xj
		delete(s.gram, [2]int32{k, j})
		delete(s.gram, [2]int32{j, k})
	}
	delete(s.gram, [2]int32{j, j})
	delete(s.rhs, j)
	delete(s.x, j)
}

// drop forgets source j's number, which the next new source takes.
func (x *index) drop(j int32) {
	for _, k := range x.neighbours[j] {
		if k == j {
			continue
		}
		x.neighbours[k] = slices.DeleteFunc(x.neighbours[k], func(i int32) bool { return i == j })
		delete(x.seen, [2]int32{k, j})
		delete(x.seen, [2]int32{j, k})
	}
	delete(x.seen, [2]int32{j, j})
	delete(x.neighbours, j)
	delete(x.ids, x.keys[j])
	x.keys[j] = types.NamespacedName{}
	x.free = append(x.free, j)
}

// Forget drops the sources' estimates at once (Estimator.Forget). The
// scheduler calls it when a source is deleted (statefulset's Forget), and
// the autoscaler for the sources it fed that the scheduler's state no
// longer holds (a deletion seen by a resync).
func (m *Measured) Forget(keys ...types.NamespacedName) {
	if len(keys) == 0 {
		return
	}
	m.feed.Lock()
	defer m.feed.Unlock()
	for _, k := range keys {
		m.est.Forget(k)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.costs, k)
	}
}
