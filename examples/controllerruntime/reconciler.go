package controllerruntime

import (
	"context"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vsched/vsched/embedkit"
)

// reconciler schedules one Source per call and writes the result to its
// status.
type reconciler struct {
	client client.Client
	sched  *embedkit.Scheduler
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var src Source
	if err := r.client.Get(ctx, req.NamespacedName, &src); apierrors.IsNotFound(err) {
		r.sched.Forget(req.NamespacedName)
		return reconcile.Result{}, nil
	} else if err != nil {
		return reconcile.Result{}, err
	}
	if src.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	before := src.deepCopy().Status
	d := r.sched.Decide(ctx, &src)
	switch {
	case d.RequeueAfter > 0:
		return reconcile.Result{RequeueAfter: d.RequeueAfter}, nil
	case d.Write:
		src.Status.Placements = d.Placements
	case d.Err == nil:
		return reconcile.Result{}, nil // not the leader
	}
	d.Condition.ObservedGeneration = src.Generation
	meta.SetStatusCondition(&src.Status.Conditions, d.Condition)
	if apiequality.Semantic.DeepEqual(before, src.Status) {
		return reconcile.Result{}, d.Err
	}
	// src carries the resourceVersion it was read at: a write based on a
	// stale read conflicts and is retried from a fresh one.
	if err := r.client.Status().Update(ctx, &src); err != nil {
		return reconcile.Result{}, err
	}
	r.sched.Observe(&src)
	return reconcile.Result{}, d.Err
}

func objectMeta(k types.NamespacedName) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: k.Namespace, Name: k.Name}
}
