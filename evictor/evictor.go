package evictor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/vsched/vsched"
)

// RequeueFunc asks the embedding controller to schedule the source again,
// for instance by adding its key to the controller's work queue. The
// source's next Schedule call moves its vreplicas off draining pods. It
// must not block, and must not call Schedule itself: it may be called while
// the autoscaler is in the middle of a cycle. Unlike the scheduler's
// statefulset.EnqueueFunc it may fail (a requeue that writes to the API
// server, say): Drainer.Requeue reports the sources it could not requeue,
// and the autoscaler's Report lists only those it did. embedkit adapts an
// EnqueueFunc into one that never fails.
type RequeueFunc func(ctx context.Context, source types.NamespacedName) error

// DrainMemory is the scheduler's side of the protocol: its memory of the pods
// being drained, which a decision reads at once, before the informer shows
// an annotation (and after a pod was recreated without it).
// *statefulset.Scheduler implements it.
type DrainMemory interface {
	// Tracks reports, for each ordinal, whether it is one of the
	// StatefulSet's pods, not a stray far above its replicas.
	Tracks(ords []int32) []bool
	// MarkDraining remembers that the pod is draining; for a stray
	// ordinal it records nothing and returns false.
	MarkDraining(ord int32) bool
	// UnmarkDraining forgets what MarkDraining remembered of the pods.
	UnmarkDraining(ords ...int32)
	// UnmarkRemoved forgets the memory, from any term, of every pod at or
	// above from that no longer exists.
	UnmarkRemoved(from int32)
}

// The values the evictor writes in the draining annotation: why the pod is
// draining.
const (
	// ReasonCompaction: the sources would fit on fewer pods; the pod is
	// among the highest ordinals being emptied so the StatefulSet can
	// shrink.
	ReasonCompaction = "compaction"
	// ReasonUnavailable: the pod's node has been NotReady or unreachable
	// for longer than the grace period.
	ReasonUnavailable = "unavailable"
	// ReasonOverCapacity: the pod holds more vreplicas than the capacity,
	// which was lowered; the excess moves.
	ReasonOverCapacity = "over-capacity"
	// ReasonHot: the pod's measured memory or CPU has stayed above its
	// limit (config-autoscaler's hot-pod keys) for the grace period; the
	// fewest vreplicas that bring it under move, and the drain is lifted
	// once they have.
	ReasonHot = "hot"
)

// Owned reports whether an annotation value is one the evictor writes, and
// so one it may remove.
func Owned(value string) bool {
	switch value {
	case ReasonCompaction, ReasonUnavailable, ReasonOverCapacity, ReasonHot:
		return true
	}
	return false
}

// Config configures a Drainer.
type Config struct {
	// Client writes the pods' annotations. Required.
	Client kubernetes.Interface
	// Namespace and StatefulSet identify the pods. Required.
	Namespace, StatefulSet string
	// Annotation is the draining annotation; it defaults to
	// DefaultAnnotation and must match the scheduler's.
	Annotation string
	// Scheduler records the marks at once (statefulset.Scheduler).
	// Required.
	Scheduler DrainMemory
	// Pods lists the pods of the namespace, typically from an informer's
	// lister; nil lists them through Client.
	Pods func() ([]*corev1.Pod, error)
	// Requeue requeues a source. Without it Drainer.Requeue does nothing,
	// and drained vreplicas move only when their sources are scheduled for
	// other reasons.
	Requeue RequeueFunc
}

type mark struct {
	reason string
	// uid is the pod the mark was written to; a pod with the ordinal and
	// another UID was recreated and gets the annotation again.
	uid types.UID
}

// Drainer marks and unmarks pods and requeues the sources on them. Its
// methods are safe for concurrent use.
type Drainer struct {
	cfg Config

	mu    sync.Mutex
	marks map[int32]mark
	// unmarked holds pods unmarked whose lister copy may still show the
	// annotation, so Adopt does not take them back.
	unmarked map[int32]types.UID
}

// New returns a Drainer.
func New(cfg Config) (*Drainer, error) {
	switch {
	case cfg.Client == nil:
		return nil, fmt.Errorf("evictor: Client is required")
	case cfg.Namespace == "" || cfg.StatefulSet == "":
		return nil, fmt.Errorf("evictor: Namespace and StatefulSet are required")
	case cfg.Scheduler == nil:
		return nil, fmt.Errorf("evictor: Scheduler is required")
	}
	if cfg.Annotation == "" {
		cfg.Annotation = DefaultAnnotation
	}
	return &Drainer{cfg: cfg, marks: map[int32]mark{}, unmarked: map[int32]types.UID{}}, nil
}

// Marks returns the pods the Drainer marked, by ordinal, with the reason.
func (d *Drainer) Marks() map[int32]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[int32]string, len(d.marks))
	for o, m := range d.marks {
		out[o] = m.reason
	}
	return out
}

// Reason returns the reason the pod was marked for, "" when it was not.
func (d *Drainer) Reason(ord int32) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.marks[ord].reason
}

func (d *Drainer) podName(ord int32) string { return vsched.PodName(d.cfg.StatefulSet, ord) }

func (d *Drainer) listPods(ctx context.Context, fromAPI bool) ([]*corev1.Pod, error) {
	if d.cfg.Pods != nil && !fromAPI {
		return d.cfg.Pods()
	}
	list, err := d.cfg.Client.CoreV1().Pods(d.cfg.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// ordinalOf returns the ordinal of a pod of the StatefulSet.
func (d *Drainer) ordinalOf(pod *corev1.Pod) (int32, bool) {
	if pod.Namespace != d.cfg.Namespace {
		return -1, false
	}
	return vsched.OrdinalOf(d.cfg.StatefulSet, pod.Name)
}

// Reset forgets every mark and clears the state's draining memory of the
// marked pods, without touching the pods. A replica that regains leadership
// calls it, then Adopt: the annotations, not what it remembered from an
// earlier term, say what is draining now.
func (d *Drainer) Reset() {
	d.mu.Lock()
	ords := make([]int32, 0, len(d.marks))
	for o := range d.marks {
		ords = append(ords, o)
	}
	d.marks = map[int32]mark{}
	d.unmarked = map[int32]types.UID{}
	d.mu.Unlock()
	if len(ords) > 0 {
		d.cfg.Scheduler.UnmarkDraining(ords...)
	}
}

// Adopt reconciles the marks with the pods' annotations (stray pods, far
// above the StatefulSet's replicas, are left alone):
//   - a pod annotated with a value the evictor writes, and not marked, is
//     marked (a new leader taking over its predecessor's drain);
//   - a marked pod that was recreated (another UID) without the annotation,
//     or that did not exist when it was marked, gets the annotation.
//
// fromAPI lists the pods through the Client rather than Config.Pods: a new
// leader does so once, since a lister may not show yet what its predecessor
// wrote a moment ago. It returns the ordinals it adopted.
func (d *Drainer) Adopt(ctx context.Context, fromAPI bool) ([]int32, error) {
	pods, err := d.listPods(ctx, fromAPI)
	if err != nil {
		return nil, fmt.Errorf("evictor: listing pods: %w", err)
	}
	type fix struct {
		ord    int32
		reason string
	}
	var adopted []int32
	var reannotate []fix
	// A stray pod far above the StatefulSet's size is not the
	// StatefulSet's: adopting it would put it in the drain set, and a later
	// cycle would remove an annotation from a pod vsched does not own.
	ords := make([]int32, 0, len(pods))
	for _, pod := range pods {
		if ord, ok := d.ordinalOf(pod); ok {
			ords = append(ords, ord)
		}
	}
	tracked := make(map[int32]bool, len(ords))
	for i, ok := range d.cfg.Scheduler.Tracks(ords) {
		tracked[ords[i]] = ok
	}
	d.mu.Lock()
	for _, pod := range pods {
		ord, ok := d.ordinalOf(pod)
		if !ok || pod.DeletionTimestamp != nil || !tracked[ord] {
			continue
		}
		v, has := pod.Annotations[d.cfg.Annotation]
		m, marked := d.marks[ord]
		if uid, ok := d.unmarked[ord]; ok && (uid != pod.UID || !has) {
			// The lister has caught up with Unmark, or the pod was
			// recreated since.
			delete(d.unmarked, ord)
		}
		switch {
		case has && Owned(v) && !marked:
			if _, lagging := d.unmarked[ord]; lagging {
				// Unmarked, but the lister still shows the
				// annotation.
				continue
			}
			adopted = append(adopted, ord)
			d.marks[ord] = mark{reason: v, uid: pod.UID}
		case has && Owned(v):
			// Keep the reason this Drainer wrote last: the lister may
			// show an older one.
			m.uid = pod.UID
			d.marks[ord] = m
		case marked && (m.uid == "" || m.uid != pod.UID):
			// Recreated (the StatefulSet controller does not copy
			// annotations from the old pod), or marked while the pod
			// did not exist.
			reannotate = append(reannotate, fix{ord, m.reason})
		}
		// A marked pod that is the one annotated but shows no
		// annotation is left alone: the lister may not have seen the
		// write yet. Cancel a drain with Unmark (or pause the
		// autoscaler), not by editing the annotation.
	}
	reasons := d.reasonsLocked(adopted)
	d.mu.Unlock()
	d.rememberAdopted(adopted, reasons)
	var errs []error
	for _, f := range reannotate {
		if err := d.Mark(ctx, f.ord, f.reason); err != nil {
			errs = append(errs, err)
		}
	}
	slices.Sort(adopted)
	return adopted, errors.Join(errs...)
}

// patch sets (value != nil) or removes the draining annotation. It returns
// the pod's UID, "" when the pod does not exist.
func (d *Drainer) patch(ctx context.Context, ord int32, value *string) (types.UID, error) {
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"annotations": map[string]*string{d.cfg.Annotation: value}},
	})
	if err != nil {
		return "", err
	}
	pod, err := d.cfg.Client.CoreV1().Pods(d.cfg.Namespace).Patch(ctx, d.podName(ord), types.MergePatchType, body, metav1.PatchOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("evictor: annotating pod %s: %w", d.podName(ord), err)
	}
	return pod.UID, nil
}

// Mark marks the pod draining for reason: it annotates the pod (a pod that
// does not exist is only remembered, and annotated once it exists; see
// Adopt) and records the mark in the scheduler's state at once. A stray
// ordinal, far above the StatefulSet's replicas (DrainMemory.Tracks), is
// refused with an error.
func (d *Drainer) Mark(ctx context.Context, ord int32, reason string) error {
	if !Owned(reason) {
		return fmt.Errorf("evictor: unknown drain reason %q", reason)
	}
	if !d.markInMemory(ord, reason) {
		return fmt.Errorf("evictor: pod %s is far above the StatefulSet's replicas; it is not drained", d.podName(ord))
	}
	d.mu.Lock()
	d.marks[ord] = mark{reason: reason, uid: d.marks[ord].uid}
	delete(d.unmarked, ord)
	d.mu.Unlock()
	uid, err := d.patch(ctx, ord, &reason)
	if err != nil {
		return err
	}
	d.mu.Lock()
	if m, ok := d.marks[ord]; ok && m.reason == reason {
		m.uid = uid
		d.marks[ord] = m
	}
	d.mu.Unlock()
	return nil
}

// Unmark cancels the drain of a pod the Drainer marked: the annotation is
// removed and the state's memory cleared. Pods it did not mark are left
// alone.
func (d *Drainer) Unmark(ctx context.Context, ord int32) error {
	d.mu.Lock()
	_, ok := d.marks[ord]
	delete(d.marks, ord)
	d.mu.Unlock()
	if !ok {
		return nil
	}
	d.cfg.Scheduler.UnmarkDraining(ord)
	uid, err := d.patch(ctx, ord, nil)
	if err == nil && uid != "" {
		d.mu.Lock()
		if _, remarked := d.marks[ord]; !remarked {
			d.unmarked[ord] = uid
		}
		d.mu.Unlock()
	}
	return err
}

// Forget drops the marks of every ordinal at or above from, and their
// draining memory, without writing: the StatefulSet was shrunk past them,
// so their pods are being deleted, and a pod created later with one of
// those ordinals must start fresh.
func (d *Drainer) Forget(from int32) {
	d.mu.Lock()
	var ords []int32
	for o := range d.marks {
		if o >= from {
			ords = append(ords, o)
			delete(d.marks, o)
		}
	}
	for o := range d.unmarked {
		if o >= from {
			delete(d.unmarked, o)
		}
	}
	d.mu.Unlock()
	d.cfg.Scheduler.UnmarkDraining(ords...)
	// Memory the scheduler holds for removed ordinals from any earlier
	// term goes too.
	d.cfg.Scheduler.UnmarkRemoved(from)
}

// Move is a source to requeue and how many of its vreplicas are expected to
// leave draining pods when it is scheduled; package descheduler plans them.
type Move struct {
	Source    types.NamespacedName
	VReplicas int32
}

// Requeue calls Config.Requeue for each move's source, in order, and returns
// the sources it requeued. Errors are joined; a failed source does not stop
// the others.
func (d *Drainer) Requeue(ctx context.Context, moves []Move) ([]types.NamespacedName, error) {
	if d.cfg.Requeue == nil {
		return nil, nil
	}
	var out []types.NamespacedName
	var errs []error
	for _, m := range moves {
		if err := d.cfg.Requeue(ctx, m.Source); err != nil {
			errs = append(errs, fmt.Errorf("evictor: requeueing %s: %w", m.Source, err))
			continue
		}
		out = append(out, m.Source)
	}
	return out, errors.Join(errs...)
}

// CanRequeue reports whether the Drainer can requeue sources.
func (d *Drainer) CanRequeue() bool { return d.cfg.Requeue != nil }
