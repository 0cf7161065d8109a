package knative

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	duckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"

	"github.com/vsched/vsched"
)

// errNoEnqueue is the error a requeue reports when it had nothing to evict
// and no work queue to use.
var errNoEnqueue = errors.New("knative: no Evictor call applies and SetEnqueue was not called")

// evict is the autoscaler's requeue (evictor.RequeueFunc) in Knative's
// terms. vsched's autoscaler marks a pod draining and then asks for the
// source to be scheduled again; Knative's autoscaler called the Evictor for
// each placement to take off a pod, and eventing-kafka-broker's Evictor
// removes that placement from the consumer group's status, whose update
// requeues the group. So: one Evictor call per placement the source holds
// on a pod the autoscaler is draining, in ordinal order. A source with none
// there (a rebalancing move, or one that already left) is enqueued instead.
// A source no longer listed is done.
func (s *StatefulSetScheduler) evict(_ context.Context, key types.NamespacedName) error {
	vp, err := s.find(key)
	if err != nil || vp == nil {
		return err
	}
	var marked map[int32]string
	if s.Autoscaler != nil {
		marked = s.Autoscaler.Marks()
	}
	from := s.onDraining(vp.GetPlacements(), marked)
	if len(from) == 0 || s.cfg.Evictor == nil {
		if f := s.enqueue.Load(); f != nil && *f != nil {
			(*f)(key)
			return nil
		}
		return fmt.Errorf("requeueing %s: %w", key, errNoEnqueue)
	}
	var errs []error
	for i := range from {
		if err := s.cfg.Evictor(s.pod(from[i].PodName), vp, &from[i]); err != nil {
			errs = append(errs, fmt.Errorf("evicting %s from %s: %w", key, from[i].PodName, err))
		}
	}
	return errors.Join(errs...)
}

// find returns the source as the lister shows it, nil when it is gone.
func (s *StatefulSetScheduler) find(key types.NamespacedName) (scheduler.VPod, error) {
	list, err := s.cfg.VPodLister()
	if err != nil {
		return nil, fmt.Errorf("listing sources to evict %s: %w", key, err)
	}
	for _, v := range list {
		if v != nil && v.GetKey() == key {
			return v, nil
		}
	}
	return nil, nil
}

// onDraining returns the placements on marked ordinals of this scheduler's
// StatefulSet, sorted by ordinal.
func (s *StatefulSetScheduler) onDraining(ps []duckv1alpha1.Placement, marked map[int32]string) []duckv1alpha1.Placement {
	var out []duckv1alpha1.Placement
	for _, p := range ps {
		ord, ok := vsched.OrdinalOf(s.cfg.StatefulSetName, p.PodName)
		if _, draining := marked[ord]; ok && draining && p.VReplicas > 0 {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b duckv1alpha1.Placement) int {
		oa, _ := vsched.OrdinalOf(s.cfg.StatefulSetName, a.PodName)
		ob, _ := vsched.OrdinalOf(s.cfg.StatefulSetName, b.PodName)
		return int(oa - ob)
	})
	return out
}

// pod returns the pod from PodLister, or one naming it when it has none.
func (s *StatefulSetScheduler) pod(name string) *corev1.Pod {
	if s.cfg.PodLister != nil {
		if p, err := s.cfg.PodLister.Get(name); err == nil {
			return p
		}
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: s.cfg.StatefulSetNamespace, Name: name}}
}
