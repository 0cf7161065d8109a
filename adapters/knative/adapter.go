package knative

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	duckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"
	"knative.dev/pkg/controller"

	"github.com/vsched/vsched"
)

// DefaultRequeueAfter is how long a retryable error asks the controller to
// wait: Knative's scheduler asks for 5s when vreplicas are left pending.
const DefaultRequeueAfter = 5 * time.Second

// Scheduler is Knative's scheduler.Scheduler over a vsched.Scheduler.
type Scheduler struct {
	sched        vsched.Scheduler
	requeueAfter time.Duration
}

var _ scheduler.Scheduler = (*Scheduler)(nil)

// Option configures a Scheduler.
type Option func(*Scheduler)

// WithRequeueAfter sets the delay retryable errors ask for (default
// DefaultRequeueAfter).
func WithRequeueAfter(d time.Duration) Option {
	return func(s *Scheduler) { s.requeueAfter = d }
}

// New returns a Knative scheduler that decides through sched.
func New(sched vsched.Scheduler, opts ...Option) *Scheduler {
	s := &Scheduler{sched: sched, requeueAfter: DefaultRequeueAfter}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Schedule implements scheduler.Scheduler. The placements are sorted by
// ordinal, as Knative's are. When vreplicas are left pending it returns the
// partial placements (write them to the status, as with Knative) and an
// error for which both errors.Is(err, vsched.ErrNotEnoughReplicas) and
// controller.IsRequeueKey hold. Not being the leader, state not loaded yet
// and a stale source version are retryable the same way, without
// placements. Any other error (such as negative vreplicas) is returned as
// vsched gives it: retrying would not help.
func (s *Scheduler) Schedule(ctx context.Context, vpod scheduler.VPod) ([]duckv1alpha1.Placement, error) {
	placements, err := s.sched.Schedule(ctx, VPod(vpod))
	if err != nil && retryable(err) {
		err = fmt.Errorf("%w (retry: %w)", err, controller.NewRequeueAfter(s.requeueAfter))
	}
	return ToKnative(placements), err
}

// Observe passes a source as the informer delivers it to the underlying
// scheduler, when it has an Observe(vsched.VPod) method (as
// *statefulset.Scheduler does). Call it from the source informer's event
// handler: a status write is how vsched learns that a decision was
// committed, and room it freed is reused only from then on (otherwise from
// the source's next Schedule or the periodic resync).
func (s *Scheduler) Observe(v scheduler.VPod) {
	if o, ok := s.sched.(interface{ Observe(vsched.VPod) }); ok && v != nil {
		o.Observe(VPod(v))
	}
}

// Forget tells the underlying scheduler, when it has a
// Forget(types.NamespacedName) method, that the source is deleted, which
// frees its room at once. Knative's scheduler had no such call: call it
// where the reconciler finalizes the source.
func (s *Scheduler) Forget(key types.NamespacedName) {
	if f, ok := s.sched.(interface{ Forget(types.NamespacedName) }); ok {
		f.Forget(key)
	}
}

func retryable(err error) bool {
	return errors.Is(err, vsched.ErrNotEnoughReplicas) || errors.Is(err, vsched.ErrNotLeader) ||
		errors.Is(err, vsched.ErrNotReady) || errors.Is(err, vsched.ErrStale)
}
