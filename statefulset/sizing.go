package statefulset

import (
	"context"

	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// What a component that sizes the StatefulSet (package autoscaler) needs of
// the scheduler, as exported methods: it gets copies and notifications,
// never the scheduler's own state. FenceShrink, EndShrink and Grown (shrink.go)
// complete it.

// Replicas is the StatefulSet's size as the scheduler's decisions count it.
func (s *Scheduler) Replicas() int32 {
	s.st.Lock()
	defer s.st.Unlock()
	return s.st.Replicas()
}

// ListSources lists every source through Config.Lister.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) ListSources() ([]vsched.VPod, error) { return s.cfg.Lister() }

// PlaceProfile is the scheduler profile the next decision would use; nil
// when none is configured.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) PlaceProfile() *framework.Profile { return s.cfg.Profiles().Place }

// Logger is the logger Config.Logger made, nil when the scheduler logs to
// its calls' contexts.
func (s *Scheduler) Logger() *zap.SugaredLogger { return s.log }

// DrainingAnnotation is the pod annotation that marks a pod draining.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) DrainingAnnotation() string { return s.st.Options().DrainingAnnotation }

// CloneLoaded returns a copy of the state for what-if simulation, after the
// leadership term's first load if it has not happened yet (the same load
// Schedule would make). The copy is the caller's: changing it changes
// nothing in the scheduler.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) CloneLoaded(ctx context.Context) (*state.State, error) {
	ts, err := s.readTermStart(ctx)
	if err != nil {
		return nil, err
	}
	s.st.Lock()
	defer s.st.Unlock()
	if err := s.ensureLoaded(ctx, ts); err != nil {
		return nil, err
	}
	return s.st.Clone(), nil
}

// SetPendingHook installs f to be called, outside any lock, after a Schedule
// call that left vreplicas pending, and once when a scale-down from outside
// is found (outside.go), replacing any f before; nil removes it.
// It is the scheduler's one pending hook: autoscaler.New installs its
// Trigger here, so that the autoscaler acts at once rather than at its next
// refresh; a controller without an autoscaler may install its own. f must
// not block.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) SetPendingHook(f func()) {
	if f == nil {
		s.pendingHook.Store(nil)
		return
	}
	s.pendingHook.Store(&f)
}

// SetStatefulSetReader installs what reads the StatefulSet from the API
// server for a term's first load: the informer may not show yet the size
// the previous leader wrote last. The autoscaler, which has a client,
// provides it; without one the term starts from the informer's view.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) SetStatefulSetReader(f func(context.Context) (*appsv1.StatefulSet, error)) {
	if f == nil {
		s.readSet.Store(nil)
		return
	}
	s.readSet.Store(&f)
}
