package evictor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/state"
)

const ns, set = "ns", "adapter"

func src(name string) types.NamespacedName { return types.NamespacedName{Namespace: "s", Name: name} }

type fixture struct {
	t        *testing.T
	client   *fake.Clientset
	st       *state.State
	mu       sync.Mutex
	d        *evictor.Drainer
	evicted  []types.NamespacedName
	evictErr error
	// pods, when set, is the Drainer's lister (Config.Pods) in place of
	// the API server's list.
	pods func() ([]*corev1.Pod, error)
}

func newFixture(t *testing.T, pods ...int32) *fixture {
	f := &fixture{t: t, client: fake.NewSimpleClientset()}
	var err error
	if f.st, err = state.New(state.Options{StatefulSetName: set, Capacity: 10}); err != nil {
		t.Fatal(err)
	}
	for _, o := range pods {
		f.createPod(o, fmt.Sprintf("uid-%d", o), nil)
	}
	f.d, err = evictor.New(evictor.Config{Client: f.client, Namespace: ns, StatefulSet: set, Scheduler: f,
		Pods: f.lister(),
		Requeue: func(_ context.Context, k types.NamespacedName) error {
			if f.evictErr != nil && k == src("bad") {
				return f.evictErr
			}
			f.evicted = append(f.evicted, k)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// lister is the Drainer's Config.Pods: f.pods once a test sets it, the
// API server's list before.
func (f *fixture) lister() func() ([]*corev1.Pod, error) {
	return func() ([]*corev1.Pod, error) {
		if f.pods != nil {
			return f.pods()
		}
		list, err := f.client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		out := make([]*corev1.Pod, len(list.Items))
		for i := range list.Items {
			out[i] = &list.Items[i]
		}
		return out, nil
	}
}

func (f *fixture) with(fn func(*state.State)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f.st)
}

// The fixture is the Drainer's Scheduler: the scheduler's drain memory on a
// bare state.

func (f *fixture) Tracks(ords []int32) []bool {
	out := make([]bool, len(ords))
	f.with(func(st *state.State) {
		for i, o := range ords {
			out[i] = st.Tracks(o)
		}
	})
	return out
}

func (f *fixture) MarkDraining(ord int32) (ok bool) {
	f.with(func(st *state.State) { ok = st.MarkDraining(ord) })
	return ok
}

func (f *fixture) UnmarkDraining(ords ...int32) {
	f.with(func(st *state.State) {
		for _, o := range ords {
			st.SetDraining(o, false)
		}
	})
}

func (f *fixture) UnmarkRemoved(from int32) { f.with(func(st *state.State) { st.UnmarkRemoved(from) }) }

func (f *fixture) createPod(ord int32, uid string, ann map[string]string) {
	_, err := f.client.CoreV1().Pods(ns).Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: vsched.PodName(set, ord), UID: types.UID(uid), Annotations: ann}}, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) deletePod(ord int32) {
	if err := f.client.CoreV1().Pods(ns).Delete(context.Background(), vsched.PodName(set, ord), metav1.DeleteOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) annotation(ord int32) (string, bool) {
	p, err := f.client.CoreV1().Pods(ns).Get(context.Background(), vsched.PodName(set, ord), metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	v, ok := p.Annotations[evictor.DefaultAnnotation]
	return v, ok
}

func (f *fixture) draining(ord int32) bool {
	var d bool
	f.with(func(st *state.State) { d = st.Draining(ord) })
	return d
}

func TestMarkUnmark(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 0, 1)
	if err := f.d.Mark(ctx, 1, evictor.ReasonCompaction); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.annotation(1); v != evictor.ReasonCompaction || !f.draining(1) {
		t.Fatalf("after Mark: annotation %q, draining %v", v, f.draining(1))
	}
	// A pod that does not exist is remembered in the state.
	if err := f.d.Mark(ctx, 7, evictor.ReasonUnavailable); err != nil {
		t.Fatal(err)
	}
	if !f.draining(7) {
		t.Fatal("pod 7 not draining")
	}
	if err := f.d.Mark(ctx, 0, "whatever"); err == nil {
		t.Fatal("an unknown reason was accepted")
	}
	if d := cmp.Diff(map[int32]string{1: evictor.ReasonCompaction, 7: evictor.ReasonUnavailable}, f.d.Marks()); d != "" {
		t.Fatalf("marks (-want +got):\n%s", d)
	}
	if err := f.d.Unmark(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, has := f.annotation(1); has || f.draining(1) {
		t.Fatal("pod 1 still drained")
	}
	// Unmarking a pod the Drainer did not mark does nothing.
	f.createPod(2, "uid-2", map[string]string{evictor.DefaultAnnotation: "true"})
	if err := f.d.Unmark(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.annotation(2); v != "true" {
		t.Fatalf("operator's annotation = %q", v)
	}
}

func TestAdopt(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 0)
	f.createPod(1, "uid-1", map[string]string{evictor.DefaultAnnotation: evictor.ReasonCompaction})
	f.createPod(2, "uid-2", map[string]string{evictor.DefaultAnnotation: "true"})
	f.createPod(3, "uid-3", map[string]string{evictor.DefaultAnnotation: evictor.ReasonUnavailable})
	got, err := f.d.Adopt(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int32{1, 3}, got); d != "" {
		t.Fatalf("adopted (-want +got):\n%s", d)
	}
	if !f.draining(1) || !f.draining(3) || f.draining(2) {
		t.Fatal("draining memory not set for the adopted pods only")
	}
	// Pod 1 is recreated without the annotation: it gets it back.
	f.deletePod(1)
	f.createPod(1, "uid-1b", nil)
	if _, err := f.d.Adopt(ctx, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.annotation(1); v != evictor.ReasonCompaction {
		t.Fatalf("recreated pod annotation = %q", v)
	}
	// A mark made while the pod did not exist is written once it does.
	if err := f.d.Mark(ctx, 4, evictor.ReasonOverCapacity); err != nil {
		t.Fatal(err)
	}
	f.createPod(4, "uid-4", nil)
	if _, err := f.d.Adopt(ctx, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.annotation(4); v != evictor.ReasonOverCapacity {
		t.Fatalf("pod 4 annotation = %q", v)
	}
}

func TestAdoptDoesNotTakeBackWhatALaggingListerShows(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.createPod(1, "uid-1", nil)
	// The lister is a snapshot taken before Unmark.
	var snapshot []*corev1.Pod
	f.pods = func() ([]*corev1.Pod, error) { return snapshot, nil }
	if err := f.d.Mark(ctx, 1, evictor.ReasonCompaction); err != nil {
		t.Fatal(err)
	}
	p, _ := f.client.CoreV1().Pods(ns).Get(ctx, vsched.PodName(set, 1), metav1.GetOptions{})
	snapshot = []*corev1.Pod{p}
	if err := f.d.Unmark(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.d.Adopt(ctx, false); len(got) != 0 || f.draining(1) {
		t.Fatalf("adopted %v from a stale lister", got)
	}
	// Once the lister catches up, a new annotation is adopted again.
	p, _ = f.client.CoreV1().Pods(ns).Get(ctx, vsched.PodName(set, 1), metav1.GetOptions{})
	snapshot = []*corev1.Pod{p}
	if got, _ := f.d.Adopt(ctx, false); len(got) != 0 {
		t.Fatalf("adopted %v", got)
	}
	p = p.DeepCopy()
	p.Annotations = map[string]string{evictor.DefaultAnnotation: evictor.ReasonCompaction}
	snapshot = []*corev1.Pod{p}
	if got, _ := f.d.Adopt(ctx, false); len(got) != 1 {
		t.Fatalf("adopted %v, want pod 1", got)
	}
}

func TestForgetAndReset(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 0, 1, 2)
	for _, o := range []int32{0, 1, 2} {
		if err := f.d.Mark(ctx, o, evictor.ReasonCompaction); err != nil {
			t.Fatal(err)
		}
	}
	f.with(func(st *state.State) { st.SetDraining(9, true) }) // left from an earlier term
	f.d.Forget(1)
	if d := cmp.Diff(map[int32]string{0: evictor.ReasonCompaction}, f.d.Marks()); d != "" {
		t.Fatalf("marks (-want +got):\n%s", d)
	}
	if !f.draining(0) || f.draining(1) || f.draining(2) || f.draining(9) {
		t.Fatal("Forget left draining memory behind")
	}
	f.d.Reset()
	if len(f.d.Marks()) != 0 || f.draining(0) {
		t.Fatal("Reset kept a mark")
	}
	// The annotation stays for the next leader to adopt.
	if v, _ := f.annotation(0); v != evictor.ReasonCompaction {
		t.Fatalf("annotation = %q", v)
	}
}

func TestRequeue(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.evictErr = errors.New("queue full")
	got, err := f.d.Requeue(ctx, []evictor.Move{{src("a"), 1}, {src("bad"), 1}, {src("c"), 2}})
	if err == nil {
		t.Fatal("the failed requeue was not reported")
	}
	if d := cmp.Diff([]types.NamespacedName{src("a"), src("c")}, got); d != "" {
		t.Fatalf("requeued (-want +got):\n%s", d)
	}
	none, err := evictor.New(evictor.Config{Client: f.client, Namespace: ns, StatefulSet: set, Scheduler: f})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := none.Requeue(ctx, []evictor.Move{{src("a"), 1}}); got != nil || err != nil || none.CanRequeue() {
		t.Fatal("a Drainer without Requeue requeued")
	}
}

func TestNewValidates(t *testing.T) {
	f := newFixture(t)
	for _, c := range []evictor.Config{
		{Namespace: ns, StatefulSet: set, Scheduler: f},
		{Client: f.client, StatefulSet: set, Scheduler: f},
		{Client: f.client, Namespace: ns, StatefulSet: set},
	} {
		if _, err := evictor.New(c); err == nil {
			t.Errorf("evictor.New(%+v) accepted", c)
		}
	}
	if !evictor.Owned(evictor.ReasonCompaction) || evictor.Owned("true") || evictor.Owned("") {
		t.Error("Owned is wrong")
	}
}

// A stray pod far above the StatefulSet's size, annotated with a reason the
// evictor writes, is not adopted: it would enter the drain set, and a later
// cycle would un-annotate a pod that is not the StatefulSet's.
func TestAdoptIgnoresStrayPods(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 0)
	f.createPod(2, "uid-2", map[string]string{evictor.DefaultAnnotation: evictor.ReasonCompaction})
	f.createPod(65535, "uid-stray", map[string]string{evictor.DefaultAnnotation: evictor.ReasonCompaction})
	got, err := f.d.Adopt(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int32{2}, got); d != "" {
		t.Errorf("adopted (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[int32]string{2: evictor.ReasonCompaction}, f.d.Marks()); d != "" {
		t.Errorf("marks (-want +got):\n%s", d)
	}
	var draining []int32
	f.with(func(st *state.State) { draining = st.DrainingOrdinals() })
	if d := cmp.Diff([]int32{2}, draining); d != "" {
		t.Errorf("DrainingOrdinals (-want +got):\n%s", d)
	}
	if err := f.d.Mark(ctx, 65535, evictor.ReasonCompaction); err == nil {
		t.Error("Mark accepted a stray ordinal")
	}
}
