package statefulset

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// A shrink is atomic with the state: FenceShrink makes the ordinals it
// removes non-candidates under the state lock and checks, under the same
// lock, that nothing committed or reserved remains there; only then is the
// size written, and EndShrink records it at once. The StatefulSet informer
// may show the new size much later, or show an older size first; until it
// confirms the shrink (state.State.ObserveReplicas) the fence keeps every
// decision below the new size.

// FenceShrink fences the state at to before a shrink from current is
// written. When some ordinal in [to, current) holds vreplicas (placed since
// the caller's snapshot) it fences just above the highest one instead, and
// says why; it returns current, fencing nothing, when no shrink is left.
// What it returns as state.Fence goes to EndShrink.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) FenceShrink(current, to int32) (int32, string, state.Fence) {
	s.st.Lock()
	defer s.st.Unlock()
	prev := s.st.Fence(to)
	top := int32(-1)
	// The informer may have shown a larger size since the caller's
	// snapshot: the size write will fail, and meanwhile the
	// check covers that size too.
	for ord := max(current, s.st.ObservedReplicas()) - 1; ord >= to; ord-- {
		if s.st.Used(ord) > 0 {
			top = ord
			break
		}
	}
	if top < 0 {
		return to, "", prev
	}
	why := fmt.Sprintf("%s still holds %d vreplica(s) (placed since the cycle's snapshot, or not moved yet)", vsched.PodName(s.key.Name, top), s.st.Used(top))
	s.st.RestoreFence(prev)
	if top+1 >= current {
		// Nothing to shrink past any more.
		return current, why, prev
	}
	s.st.Fence(top + 1)
	return top + 1, why, prev
}

// EndShrink records the outcome of writing the shrink FenceShrink fenced
// for: the written size (at resource version rv) at once, or, when the
// write failed, the fence as it was before, so the ordinals take
// vreplicas again at once.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) EndShrink(prev state.Fence, to int32, rv string, err error) {
	s.st.Lock()
	if err != nil {
		s.st.RestoreFence(prev)
		s.st.Unlock()
		return
	}
	s.st.FenceWritten(to, rv)
	above := sourcesFrom(s.st, to)
	s.st.Unlock()
	s.requeueSources(above)
}

// Grown records that this replica wrote a larger size, to, at resource
// version rv. It ends a fence: the shrink it guarded is superseded, and the
// informer showing the new size later must not be needed to let the pods
// that come back take vreplicas. And the size counts as observed at once,
// as a shrink's does: the informer may still deliver events from before
// the write, showing a size already replaced (a shrink this replica wrote
// and grew back from); taken as news, they would put ordinals that hold
// vreplicas beyond the replicas, and Schedule would move them. A size at
// least RestoreSize, with its version (rv), ends the wait of a StatefulSet
// created again below the pods its sources hold; without one (the write
// found a larger size) the wait goes on until the next cycle's restore or
// the informer shows the size.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) Grown(to int32, rv string) {
	// The wait ends under the state lock, with the size recorded: a
	// Schedule in between would find the StatefulSet present and decide
	// against the size the state still had, 0 for a process restarted
	// while it was gone, or the larger one from before the delete (issue
	// 23: vreplicas dropped, or placed beyond the size restored).
	s.st.Lock()
	ended, last := s.presence.grown(to, rv != "")
	sizedBack := rv != "" && s.outside.grown(to) // the same, after a scale-down from outside
	s.st.Unfence()
	before := s.st.Replicas()
	if last != nil && specReplicas(last) >= to {
		// Its size was not taken while decisions waited for the
		// restore; the write below may not have been needed (already
		// as large) and carry no version.
		s.observeSize(last)
	}
	if rv != "" {
		s.st.ObserveReplicas(to, rv)
	}
	grew := s.st.Replicas() > before
	s.st.Unlock()
	if ended {
		s.seen.logger().Infow(LogStatefulSetBack, "replicas", to, "restoreTo", 0)
	}
	if sizedBack {
		s.seen.logger().Infow(LogSizedBack, "replicas", to)
	}
	if grew {
		s.requeuePending()
	}
}

// observeSize records the StatefulSet's size from an informer event. It
// returns whether the size decisions go by grew, and the sources still
// holding vreplicas at or above it after a shrink (whoever made it): their
// placements there run nowhere, and Schedule moves them once they are
// requeued. Called with the state locked.
func (s *Scheduler) observeSize(set *appsv1.StatefulSet) (grew bool, above []types.NamespacedName) {
	replicas := int32(1) // the API server's default for an unset field
	if set.Spec.Replicas != nil {
		replicas = *set.Spec.Replicas
	}
	if s.st.StaleReplicas(set.ResourceVersion) {
		return false, nil
	}
	s.observeResources(set)
	before := s.st.Replicas()
	shrunk := replicas < s.st.ObservedReplicas()
	s.st.ObserveReplicas(replicas, set.ResourceVersion)
	after := s.st.Replicas()
	if shrunk || after < before {
		above = sourcesFrom(s.st, after)
	}
	return after > before, above
}

// sourcesFrom lists, sorted, the sources holding vreplicas (committed or
// reserved) at or above ordinal n.
func sourcesFrom(st *state.State, n int32) []types.NamespacedName {
	seen := map[types.NamespacedName]bool{}
	var out []types.NamespacedName
	for _, h := range st.HoldingsOn(func(ord int32) bool { return ord >= n }) {
		if !seen[h.Source] {
			seen[h.Source] = true
			out = append(out, h.Source)
		}
	}
	state.SortKeys(out)
	return out
}

// requeueSources hands the sources to Config.Requeue, on the leader only.
func (s *Scheduler) requeueSources(keys []types.NamespacedName) {
	if s.cfg.Requeue == nil || !s.leader.Load() {
		return
	}
	for _, k := range keys {
		s.cfg.Requeue(k)
	}
}
