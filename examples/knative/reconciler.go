package knative

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched/embedkit"
)

// sourceReconciler schedules the source named by a key and writes the decision
// back to its ConfigMap.
type sourceReconciler struct {
	kube   kubernetes.Interface
	lister corelisters.ConfigMapLister
	sched  *embedkit.Scheduler
	// enqueue is the controller's impl.EnqueueKey.
	enqueue func(types.NamespacedName)
}

var (
	_ controller.Reconciler  = (*sourceReconciler)(nil)
	_ reconciler.LeaderAware = (*sourceReconciler)(nil)
)

func (r *sourceReconciler) Reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return controller.NewPermanentError(err)
	}
	cm, err := r.lister.ConfigMaps(ns).Get(name)
	if apierrors.IsNotFound(err) {
		r.sched.Forget(types.NamespacedName{Namespace: ns, Name: name})
		return nil
	} else if err != nil {
		return err
	}
	d := r.sched.Decide(ctx, source{cm})
	placements := source{cm}.GetPlacements()
	switch {
	case d.RequeueAfter > 0:
		return controller.NewRequeueAfter(d.RequeueAfter)
	case d.Write:
		placements = d.Placements
	case d.Err == nil:
		return nil // not the leader
	}
	cond := d.Condition
	if old, ok := Scheduled(cm); ok && old.Status == cond.Status && old.Reason == cond.Reason {
		cond.LastTransitionTime = old.LastTransitionTime
	} else {
		cond.LastTransitionTime = metav1.Now()
	}
	updated, err := withStatus(cm, placements, cond)
	if err != nil || (updated.Data[KeyPlacements] == cm.Data[KeyPlacements] &&
		updated.Data[KeyScheduled] == cm.Data[KeyScheduled]) {
		return firstErr(err, d.Err)
	}
	if !r.sched.IsLeader() {
		return nil // lost the lease since deciding: the next leader writes
	}
	// updated carries the resourceVersion cm was read at: a write based
	// on a stale read conflicts and is retried from a fresh one.
	written, err := r.kube.CoreV1().ConfigMaps(ns).Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	r.sched.Observe(source{written})
	return d.Err
}

// Promote takes the scheduler's leadership for the buckets it owns; once
// it leads, every source is enqueued (whatever bucket its key hashes to),
// so that the new term decides each of them. enq is nil on knative's
// initial promotion, before the queue runs.
func (r *sourceReconciler) Promote(b reconciler.Bucket, enq func(reconciler.Bucket, types.NamespacedName)) error {
	if err := r.sched.Promote(b, enq); err != nil || !r.sched.IsLeader() {
		return err
	}
	cms, err := r.lister.List(labels.Everything())
	for _, cm := range cms {
		r.enqueue(types.NamespacedName{Namespace: cm.Namespace, Name: cm.Name})
	}
	return err
}

func (r *sourceReconciler) Demote(b reconciler.Bucket) { r.sched.Demote(b) }

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
