package statefulset

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// moveQuotas are per-source bounds on the vreplicas a Schedule call moves
// off draining pods, set by the autoscaler when a hot pod sheds
// (SetMoveQuota): the shed's plan moves exactly so many of each source,
// where the drain move limit would move all it holds there, up to the
// limit. A Schedule call spends the quota: the source's next calls move
// nothing off draining pods until the quota is set again or cleared.
type moveQuotas struct {
	mu sync.Mutex
	m  map[types.NamespacedName]int32
}

// SetMoveQuota bounds how many of the source's vreplicas its next Schedule
// call moves off draining pods to n (at most the drain move limit); the
// calls after it move none until the quota is cleared
// (ClearMoveQuota). The autoscaler's hot-pod shed sets it before it
// requeues the source.
func (s *Scheduler) SetMoveQuota(key types.NamespacedName, n int32) {
	q := &s.quotas
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.m == nil {
		q.m = map[types.NamespacedName]int32{}
	}
	q.m[key] = max(n, 0)
}

// ClearMoveQuota lifts the sources' quotas: the drain move limit applies
// again.
func (s *Scheduler) ClearMoveQuota(keys ...types.NamespacedName) {
	q := &s.quotas
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, k := range keys {
		delete(q.m, k)
	}
}

// takeMoveQuota returns the source's quota, if it has one, and spends it.
func (s *Scheduler) takeMoveQuota(key types.NamespacedName) (int32, bool) {
	q := &s.quotas
	q.mu.Lock()
	defer q.mu.Unlock()
	n, ok := q.m[key]
	if ok {
		q.m[key] = 0
	}
	return n, ok
}

// moveLimitFor is the bound on what the source's decision moves off
// draining pods: its quota when it has one (within the drain move limit),
// else the drain move limit; bounded says whether there is a bound at
// all. Called with the state locked.
func (s *Scheduler) moveLimitFor(vpod vsched.VPod) (limit int32, bounded bool) {
	limit = s.drainMoveLimit()
	if n, ok := s.takeMoveQuota(vpod.GetKey()); ok {
		if limit > 0 {
			n = min(n, limit)
		}
		return n, true
	}
	return limit, limit > 0
}
