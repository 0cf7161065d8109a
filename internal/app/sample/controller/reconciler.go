// Package controller is the sample source controller: a knative.dev/pkg
// controller that places SampleSources' vreplicas on a StatefulSet's pods
// with vsched's scheduler, sizes the StatefulSet with its autoscaler and
// moves vreplicas off drained pods with its evictor.
package controller

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	kcontroller "knative.dev/pkg/controller"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
)

// Reconciler schedules one SampleSource per call and writes the result to
// its status.
type Reconciler struct {
	sched  *embedkit.Scheduler
	lister cache.GenericLister
	client dynamic.NamespaceableResourceInterface
	// recorder receives an Event on a source whose vreplicas moved off a
	// drained pod or a lost node (embedkit.MovedEvent); may be nil.
	recorder record.EventRecorder
	// enqueueAll enqueues every source; set once the controller exists.
	enqueueAll func()

	// podsStarting reports whether pods the StatefulSet's spec pays for
	// are not bound to a node yet; bindWait bounds how long a source that
	// needs new vreplicas waits for them (see waitForStartingPods).
	podsStarting  func() bool
	bindWait      time.Duration
	startingMu    sync.Mutex
	startingSince time.Time
	now           func() time.Time

	// pendingSince is when each source, nothing placed for it yet, was
	// first found pending in this leadership term (see
	// deferPendingWrite); pruned is when windows of sources never
	// reconciled again (deleted) were last dropped.
	pendingMu    sync.Mutex
	pendingSince map[types.NamespacedName]pendingWindow
	pruned       time.Time
}

// pendingWindow is one source's wait for room before its pending status is
// written. It is the object's (uid): a source deleted and created again
// under the same name waits anew.
type pendingWindow struct {
	uid   types.UID
	since time.Time
}

// deferPendingWrite returns how long to wait before writing the pending
// status of a source whose decision placed nothing new, or 0 to write it
// now. When the controller starts on sources its StatefulSet has no room
// for (from 0 pods), every source is pending until the autoscaler's pods
// come, seconds later: writing "pending" and then the placements would be
// two status writes per source. The scheduler requeues a pending source as
// soon as room appears, so the write waits, up to bindWait from the
// source's first pending decision; after that its status says why. The
// window ends when a status write lands (endPendingWindow), not when one
// is tried: a write that failed is retried at once. Placements that
// changed are progress, and a status that already says pending is kept
// current: both are written at once.
func (r *Reconciler) deferPendingWrite(src *v1alpha1.SampleSource, before *v1alpha1.SampleSourceStatus, placements []vsched.Placement) time.Duration {
	if r.bindWait <= 0 || r.now == nil || !apiequality.Semantic.DeepEqual(before.Placements, placements) {
		return 0
	}
	if c := meta.FindStatusCondition(before.Conditions, v1alpha1.ConditionScheduled); c != nil && c.Reason == v1alpha1.ReasonNotEnoughCapacity {
		return 0
	}
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	now := r.now()
	r.prunePendingLocked(now)
	key := src.GetKey()
	w, ok := r.pendingSince[key]
	if !ok || w.uid != src.UID {
		if r.pendingSince == nil {
			r.pendingSince = map[types.NamespacedName]pendingWindow{}
		}
		w = pendingWindow{uid: src.UID, since: now}
		r.pendingSince[key] = w
	}
	return max(w.since.Add(r.bindWait).Sub(now), 0)
}

// prunePendingLocked drops, at most once per bindWait, the windows opened
// over two bindWaits ago: their source was deleted, or its requeue is long
// overdue. r.pendingMu is held.
func (r *Reconciler) prunePendingLocked(now time.Time) {
	if now.Sub(r.pruned) < r.bindWait {
		return
	}
	r.pruned = now
	for k, since := range r.pendingSince {
		if now.Sub(since.since) >= 2*r.bindWait {
			delete(r.pendingSince, k)
		}
	}
}

// holdPendingWrite returns, for a decision, how long to wait before
// writing it (deferPendingWrite), or 0; a source placed in full ends its
// pending window.
func (r *Reconciler) holdPendingWrite(src *v1alpha1.SampleSource, before *v1alpha1.SampleSourceStatus, d embedkit.Verdict) time.Duration {
	switch {
	case !d.Write:
	case d.Condition.Status == metav1.ConditionTrue:
		r.endPendingWindow(src.GetKey())
	case d.Condition.Reason == embedkit.ReasonNotEnoughCapacity:
		return r.deferPendingWrite(src, before, d.Placements)
	}
	return 0
}

// endPendingWindow ends the source's pending window: its status was
// written, it is placed in full, or it is gone.
func (r *Reconciler) endPendingWindow(key types.NamespacedName) {
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	delete(r.pendingSince, key)
}

// endPendingWindows ends every window: a term's windows end with it, and
// the next term, whose autoscaler has pods to ask for too, opens its own.
func (r *Reconciler) endPendingWindows() {
	r.pendingMu.Lock()
	defer r.pendingMu.Unlock()
	r.pendingSince = nil
}

// waitForStartingPods returns how long to wait before scheduling new
// vreplicas, or 0. vsched places on the pods that are bound now; while the
// StatefulSet grows, the first sources scheduled would all land on the
// first pods bound (often one zone), and running vreplicas are not
// rebalanced unless the profile has a Rebalancer (EvenZoneSpread, which
// also counts the zones still waiting for pods). So a source that needs new
// vreplicas waits, up to bindWait
// after the first unbound pod was seen, for the new pods to be bound, and
// is then spread over all of them.
func (r *Reconciler) waitForStartingPods() time.Duration {
	if r.podsStarting == nil || r.bindWait <= 0 {
		return 0
	}
	r.startingMu.Lock()
	defer r.startingMu.Unlock()
	if !r.podsStarting() {
		r.startingSince = time.Time{}
		return 0
	}
	now := r.now()
	if r.startingSince.IsZero() {
		r.startingSince = now
	}
	if now.Sub(r.startingSince) >= r.bindWait {
		return 0
	}
	return 250 * time.Millisecond
}

var (
	_ kcontroller.Reconciler = (*Reconciler)(nil)
	_ reconciler.LeaderAware = (*Reconciler)(nil)
)

// Promote implements reconciler.LeaderAware. Leadership is the scheduler's:
// it leads while it holds a bucket owning the StatefulSet's key. All the
// sources of a StatefulSet are reconciled by its leader, whatever bucket
// their own keys hash to (with buckets > 1 a source's bucket and the
// StatefulSet's need not be held by the same replica), so every source is
// enqueued on promotion, not only the bucket's.
func (r *Reconciler) Promote(b reconciler.Bucket, enq func(reconciler.Bucket, types.NamespacedName)) error {
	if err := r.sched.Promote(b, enq); err != nil {
		return err
	}
	if r.sched.IsLeader() && r.enqueueAll != nil {
		r.enqueueAll()
	}
	return nil
}

// Demote implements reconciler.LeaderAware.
func (r *Reconciler) Demote(b reconciler.Bucket) {
	r.sched.Demote(b)
	if !r.sched.IsLeader() {
		r.endPendingWindows()
	}
}

// read returns the source to schedule from the lister, or nil when there
// is none (deleted, or being deleted).
func (r *Reconciler) read(key types.NamespacedName) (*v1alpha1.SampleSource, error) {
	obj, err := r.lister.ByNamespace(key.Namespace).Get(key.Name)
	if apierrs.IsNotFound(err) {
		r.sched.Forget(key)
		r.endPendingWindow(key)
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	src, err := v1alpha1.FromUnstructured(obj.(*unstructured.Unstructured))
	if err != nil {
		return nil, kcontroller.NewPermanentError(err)
	}
	if src.DeletionTimestamp != nil {
		return nil, nil
	}
	return src, nil
}

// Reconcile implements knative.dev/pkg/controller.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, keyStr string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(keyStr)
	if err != nil {
		return kcontroller.NewPermanentError(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: name}
	if !r.sched.IsLeader() {
		// The leader reconciles; it enqueues every source when promoted.
		return nil
	}
	src, err := r.read(key)
	if src == nil || err != nil {
		return err
	}
	before := src.Status
	before.Placements = append([]vsched.Placement(nil), before.Placements...)
	before.Conditions = append([]metav1.Condition(nil), before.Conditions...)

	if vsched.TotalVReplicas(src.Status.Placements) < src.Spec.VReplicas {
		if d := r.waitForStartingPods(); d > 0 {
			return kcontroller.NewRequeueAfter(d)
		}
	}
	d := r.sched.Decide(ctx, src)
	if d.StatefulSetMissing != "" {
		return r.reportMissing(ctx, src, before, d)
	}
	if wait := r.holdPendingWrite(src, &before, d); wait > 0 {
		return kcontroller.NewRequeueAfter(wait)
	}
	switch {
	case d.RequeueAfter > 0:
		return kcontroller.NewRequeueAfter(d.RequeueAfter)
	case d.Write:
		// Partial placements too: the scheduler requeues the source when
		// room appears, and the autoscaler was triggered by the Schedule
		// call.
		src.Status.Placements = d.Placements
		src.Status.PlacedVReplicas = vsched.TotalVReplicas(d.Placements)
		setCondition(src, d.Condition)
	case d.Err != nil:
		// Keep the placements in the status (they still run) and say why.
		setCondition(src, d.Condition)
	default:
		// Not the leader.
		return nil
	}
	src.Status.ObservedGeneration = src.Generation
	if apiequality.Semantic.DeepEqual(before, src.Status) {
		return d.Err
	}
	return r.writeStatus(ctx, src, d)
}

// writeStatus writes the source's status as Reconcile changed it, from d,
// and has the scheduler observe what was written; it returns d.Err once
// written.
func (r *Reconciler) writeStatus(ctx context.Context, src *v1alpha1.SampleSource, d embedkit.Verdict) error {
	if !r.sched.IsLeader() {
		// Demoted while deciding: the term's decision ended with it (the
		// scheduler dropped its reservation), and the new leader decides
		// afresh. Writing it now would be a second leader's write.
		return nil
	}
	u, err := v1alpha1.ToUnstructured(src)
	if err != nil {
		return kcontroller.NewPermanentError(err)
	}
	// The object carries the resource version it was read at: a write
	// based on a stale read fails with a conflict (and is retried from a
	// fresh read) instead of putting back placements someone else changed.
	updated, err := r.client.Namespace(src.Namespace).UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: "sample-controller"})
	if err != nil {
		if apierrs.IsConflict(err) {
			logging.FromContext(ctx).Debugw("status write conflicted; retrying from a fresh read", "error", err)
		}
		return err
	}
	r.endPendingWindow(src.GetKey())
	if fresh, err := v1alpha1.FromUnstructured(updated); err == nil {
		r.sched.Observe(fresh)
	}
	if msg, ok := embedkit.MovedEvent(d); ok && r.recorder != nil {
		// Written: the adapter moves them now.
		r.recorder.Event(updated, corev1.EventTypeNormal, embedkit.ReasonVReplicasMoved, msg)
	}
	if d.StatefulSetMissing != "" && r.recorder != nil {
		// Written: the condition has just begun to say so.
		r.recorder.Event(updated, corev1.EventTypeWarning, embedkit.ReasonStatefulSetMissing, d.Condition.Message)
	}
	return d.Err
}

// reportMissing says on the source that its StatefulSet is missing: the
// condition (its placements stay as they are, for the pods that may still
// run them), and a Warning Event when the condition first says so. Then it
// asks to be retried: the scheduler decides again once the StatefulSet is
// back.
func (r *Reconciler) reportMissing(ctx context.Context, src *v1alpha1.SampleSource, before v1alpha1.SampleSourceStatus, d embedkit.Verdict) error {
	setCondition(src, d.Condition)
	if !apiequality.Semantic.DeepEqual(before, src.Status) {
		if err := r.writeStatus(ctx, src, d); err != nil {
			return err
		}
	}
	return kcontroller.NewRequeueAfter(d.RequeueAfter)
}

func setCondition(src *v1alpha1.SampleSource, c metav1.Condition) {
	c.ObservedGeneration = src.Generation
	meta.SetStatusCondition(&src.Status.Conditions, c)
}
