package statefulset

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
)

// keepOnHotPods keeps a source's vreplicas on the pods draining because
// they are hot (evictor.ReasonHot) unless the source has a move quota: a
// hot pod's shed moves exactly its plan (SetMoveQuota), the fewest that
// cool it, and a source scheduled for another reason (a resync, a spec
// change) would otherwise move all it holds there. New vreplicas still
// never go to a draining pod. Called with the state locked.
func (s *Scheduler) keepOnHotPods(key types.NamespacedName, split descheduler.Split) descheduler.Split {
	if len(split.Draining) == 0 || s.hasMoveQuota(key) {
		return split
	}
	var draining []vsched.Placement
	kept := false
	for _, p := range split.Draining {
		if s.drains.hot(p.PodName) {
			split.Kept = append(split.Kept, p)
			kept = true
		} else {
			draining = append(draining, p)
		}
	}
	if !kept {
		return split
	}
	vsched.SortPlacements(split.Kept)
	split.Draining = draining
	return split
}

// hasMoveQuota says whether the source has a move quota, spent or not.
func (s *Scheduler) hasMoveQuota(key types.NamespacedName) bool {
	q := &s.quotas
	q.mu.Lock()
	defer q.mu.Unlock()
	_, ok := q.m[key]
	return ok
}

// MarkDrainingFor is MarkDraining that also remembers the reason
// (evictor.ReasonMemory) until UnmarkDraining: the annotation the
// informer shows comes later.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) MarkDrainingFor(ord int32, reason string) bool {
	if !s.MarkDraining(ord) {
		return false
	}
	s.drains.mark(vsched.PodName(s.key.Name, ord), reason)
	return true
}

// mark remembers the reason the evictor gave for the pod's drain.
func (d *drainReasons) mark(pod, reason string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.marked == nil {
		d.marked = map[string]string{}
	}
	d.marked[pod] = reason
}

// unmark forgets the reasons the evictor gave for the pods' drains.
func (d *drainReasons) unmark(set string, ords []int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, o := range ords {
		delete(d.marked, vsched.PodName(set, o))
	}
}

// hot says whether the pod drains because it is hot, by the evictor's
// mark or by the annotation.
func (d *drainReasons) hot(pod string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.marked[pod] == evictor.ReasonHot || d.by[pod] == evictor.ReasonHot
}
