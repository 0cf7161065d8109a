package memcluster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/memcluster"
)

// listerRV is the pod's resourceVersion as the informer's lister holds it,
// "" when it does not hold the pod.
func listerRV(t *testing.T, c *memcluster.Cluster, ord int32) string {
	t.Helper()
	p, err := c.InformerFactory().Core().V1().Pods().Lister().Pods(c.Namespace()).Get(c.PodName(ord))
	if apierrors.IsNotFound(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return p.ResourceVersion
}

func podRV(t *testing.T, c *memcluster.Cluster, ord int32) string {
	t.Helper()
	p, err := c.Pod(ord)
	if err != nil {
		t.Fatal(err)
	}
	return p.ResourceVersion
}

func TestHoldKeepsEventsFromInformersUntilRelease(t *testing.T) {
	c, ctx := started(t, memcluster.Options{Replicas: 2})
	before := listerRV(t, c, 0)
	c.Hold(memcluster.KindPod)
	if err := c.AnnotatePod(0, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := c.Cordon("node-zone-a-0"); err != nil {
		t.Fatal(err)
	}
	// Sync waits for the kinds not held: the node's write, not the pod's.
	if err := c.Sync(ctx); err != nil {
		t.Fatalf("Sync with pods held: %v", err)
	}
	n, err := c.InformerFactory().Core().V1().Nodes().Lister().Get("node-zone-a-0")
	if err != nil || !n.Spec.Unschedulable {
		t.Fatalf("node lister after Sync: %v, %v; want the cordon seen", n, err)
	}
	if got := listerRV(t, c, 0); got != before {
		t.Fatalf("pod lister holds version %s while pods are held, want %s", got, before)
	}
	if err := c.WaitFor(ctx, func() bool { held, n := c.Held(memcluster.KindPod); return held && n == 1 }); err != nil {
		t.Fatalf("Held(pods) never reported one event held: %v", err)
	}
	c.Release(memcluster.KindPod)
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := listerRV(t, c, 0), podRV(t, c, 0); got != want {
		t.Fatalf("pod lister holds version %s after Release and Sync, want %s", got, want)
	}
	if held, n := c.Held(memcluster.KindPod); held || n != 0 {
		t.Fatalf("Held(pods) = %v, %d after Release; want false, 0", held, n)
	}
}

func TestReleaseNLetsTheOldestEventsThrough(t *testing.T) {
	c, ctx := started(t, memcluster.Options{Replicas: 1})
	c.Hold(memcluster.KindPod)
	var rvs []string
	for i := range 3 {
		if err := c.AnnotatePod(0, "step", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, podRV(t, c, 0))
	}
	c.ReleaseN(memcluster.KindPod, 1)
	if err := c.WaitFor(ctx, func() bool { return listerRV(t, c, 0) == rvs[0] }); err != nil {
		t.Fatalf("the first held event did not arrive: %v", err)
	}
	if err := c.WaitFor(ctx, func() bool { _, n := c.Held(memcluster.KindPod); return n == 2 }); err != nil {
		t.Fatal(err)
	}
	if got := listerRV(t, c, 0); got != rvs[0] {
		t.Fatalf("lister at version %s after ReleaseN(1), want %s", got, rvs[0])
	}
	c.Release(memcluster.KindPod)
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := listerRV(t, c, 0); got != rvs[2] {
		t.Fatalf("lister at version %s after Release, want %s", got, rvs[2])
	}
}

func TestHoldingABurstLargerThanTheFakeWatchBuffer(t *testing.T) {
	// The fake watch panics beyond 100 unread events; held events must
	// queue in the cluster, not there.
	c, ctx := started(t, memcluster.Options{Replicas: 1})
	c.Hold(memcluster.KindPod)
	if err := c.ScaleTo(250); err != nil {
		t.Fatal(err)
	}
	lister := c.InformerFactory().Core().V1().Pods().Lister()
	if pods, _ := lister.List(labels.Everything()); len(pods) != 1 {
		t.Fatalf("lister holds %d pods while held, want 1", len(pods))
	}
	if err := c.WaitFor(ctx, func() bool { _, n := c.Held(memcluster.KindPod); return n == 249 }); err != nil {
		_, n := c.Held(memcluster.KindPod)
		t.Fatalf("%d pod events held, want 249: %v", n, err)
	}
	c.Release(memcluster.KindPod)
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if pods, _ := lister.List(labels.Everything()); len(pods) != 250 {
		t.Fatalf("lister holds %d pods after Release, want 250", len(pods))
	}
}

func TestHeldStatefulSetIsNotSeen(t *testing.T) {
	c, ctx := started(t, memcluster.Options{Replicas: 1})
	c.Hold(memcluster.KindStatefulSet)
	if err := c.ScaleTo(2); err != nil {
		t.Fatal(err)
	}
	// Sync returns, the StatefulSet unseen; waiting for the StatefulSet's
	// lister then times out.
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	sets := c.InformerFactory().Apps().V1().StatefulSets().Lister().StatefulSets(c.Namespace())
	set, err := sets.Get(c.StatefulSetName())
	if err != nil {
		t.Fatal(err)
	}
	if *set.Spec.Replicas != 1 {
		t.Fatalf("StatefulSet lister while held: replicas %d; want 1", *set.Spec.Replicas)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = c.WaitFor(short, func() bool { set, _ := sets.Get(c.StatefulSetName()); return *set.Spec.Replicas == 2 })
	if err == nil {
		t.Fatal("the held StatefulSet write reached the lister")
	}
	c.Release(memcluster.KindStatefulSet)
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if set, _ := sets.Get(c.StatefulSetName()); *set.Spec.Replicas != 2 {
		t.Fatalf("replicas %d after Release, want 2", *set.Spec.Replicas)
	}
}

func TestScaleSubresource(t *testing.T) {
	c, ctx := started(t, memcluster.Options{Replicas: 3})
	sets := c.Client().AppsV1().StatefulSets(c.Namespace())
	sc, err := sets.GetScale(ctx, c.StatefulSetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := c.StatefulSet()
	if sc.Spec.Replicas != 3 || sc.ResourceVersion != set.ResourceVersion || sc.Name != c.StatefulSetName() {
		t.Fatalf("GetScale = %+v; want replicas 3 at version %s", sc, set.ResourceVersion)
	}
	c.Hold(memcluster.KindStatefulSet) // Sync must wait for the write after Release
	stale := sc.DeepCopy()
	sc.Spec.Replicas = 5
	out, err := sets.UpdateScale(ctx, c.StatefulSetName(), sc, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set, _ = c.StatefulSet()
	if *set.Spec.Replicas != 5 || out.Spec.Replicas != 5 || c.Replicas() != 3 {
		t.Fatalf("after UpdateScale(5): spec %d, answer %d, Replicas() %d", *set.Spec.Replicas, out.Spec.Replicas, c.Replicas())
	}
	if rvNum(t, set.ResourceVersion) <= rvNum(t, sc.ResourceVersion) || out.ResourceVersion != set.ResourceVersion {
		t.Fatalf("version %s after the write (answer %s), read at %s: want a fresh one", set.ResourceVersion, out.ResourceVersion, sc.ResourceVersion)
	}
	if set.Status.Replicas != 3 {
		t.Errorf("status.replicas %d; the StatefulSet controller has not acted, want 3", set.Status.Replicas)
	}
	if ords, _ := c.PodOrdinals(); len(ords) != 3 {
		t.Errorf("pods %v; they follow only ScaleTo", ords)
	}
	stale.Spec.Replicas = 1
	if _, err := sets.UpdateScale(ctx, c.StatefulSetName(), stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("UpdateScale from a stale read: %v; want a conflict", err)
	}
	neg := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: c.StatefulSetName()}, Spec: autoscalingv1.ScaleSpec{Replicas: -1}}
	if _, err := sets.UpdateScale(ctx, c.StatefulSetName(), neg, metav1.UpdateOptions{}); !apierrors.IsBadRequest(err) {
		t.Fatalf("UpdateScale(-1): %v; want a bad request", err)
	}
	c.Release(memcluster.KindStatefulSet)
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	lister := c.InformerFactory().Apps().V1().StatefulSets().Lister().StatefulSets(c.Namespace())
	if got, _ := lister.Get(c.StatefulSetName()); *got.Spec.Replicas != 5 || got.ResourceVersion != set.ResourceVersion {
		t.Fatalf("lister after Sync: replicas %d at %s; want 5 at %s", *got.Spec.Replicas, got.ResourceVersion, set.ResourceVersion)
	}
	// The pods follow the written size when the StatefulSet controller
	// (Settle) acts.
	if n, err := c.Settle(); err != nil || n != 5 || c.Replicas() != 5 {
		t.Fatalf("Settle() = %d, %v; Replicas() %d; want 5", n, err, c.Replicas())
	}
	if ords, _ := c.PodOrdinals(); len(ords) != 5 {
		t.Errorf("pods %v after Settle, want 5", ords)
	}
}

func TestSourcesUnsynced(t *testing.T) {
	s := memcluster.NewSources()
	a, _ := s.Create(key("a"), 1)
	if !s.HasSynced() {
		t.Fatal("a new store's lister has not synced")
	}
	s.SetSynced(false)
	list, err := s.List()
	if err != nil || list == nil || len(list) != 0 {
		t.Fatalf("unsynced List() = %v, %v; want an empty list and no error", list, err)
	}
	if s.HasSynced() {
		t.Fatal("HasSynced() = true while unsynced")
	}
	if got, err := s.Get(key("a")); err != nil || got != a {
		t.Fatalf("Get while unsynced = %v, %v; it reads the API server", got, err)
	}
	s.SetSynced(true)
	if d := cmp.Diff([]vpodView{viewOf(a)}, listView(t, s)); d != "" || !s.HasSynced() {
		t.Fatalf("synced again: HasSynced %v, List (-want +got):\n%s", s.HasSynced(), d)
	}
}

func TestFailCommits(t *testing.T) {
	s := memcluster.NewSources()
	v, _ := s.Create(key("a"), 2)
	unavailable := apierrors.NewServiceUnavailable("etcd is slow")
	s.FailCommits(2, unavailable)
	ps := []vsched.Placement{pl("adapter-0", 2)}
	for i := range 2 {
		if err := s.CommitPlacements(key("a"), v.GetResourceVersion(), ps); !errors.Is(err, unavailable) {
			t.Fatalf("commit %d: %v; want the injected error", i, err)
		}
		if got, _ := s.Get(key("a")); got != v {
			t.Fatalf("commit %d failed but stored %v", i, got)
		}
	}
	if err := s.CommitPlacements(key("a"), v.GetResourceVersion(), ps); err != nil {
		t.Fatalf("third commit: %v; only two were to fail", err)
	}
}

func TestConflictCommits(t *testing.T) {
	s := memcluster.NewSources()
	v, _ := s.Create(key("a"), 2)
	s.ConflictCommits(1)
	ps := []vsched.Placement{pl("adapter-0", 2)}
	if err := s.CommitPlacements(key("a"), v.GetResourceVersion(), ps); !apierrors.IsConflict(err) {
		t.Fatalf("commit: %v; want a conflict", err)
	}
	// Another writer won: the source moved on, its placements untouched,
	// so the same write fails on its own merits too.
	w, _ := s.Get(key("a"))
	if rvNum(t, w.GetResourceVersion()) <= rvNum(t, v.GetResourceVersion()) || len(w.GetPlacements()) != 0 || w.GetVReplicas() != 2 {
		t.Fatalf("after the conflict the source is %v; want a newer version, nothing else changed", w)
	}
	if err := s.CommitPlacements(key("a"), v.GetResourceVersion(), ps); !apierrors.IsConflict(err) {
		t.Fatalf("retry from the stale read: %v; want a conflict", err)
	}
	if err := s.CommitPlacements(key("a"), w.GetResourceVersion(), ps); err != nil {
		t.Fatalf("retry from a fresh read: %v", err)
	}
	// A source that does not exist does not use up the injection.
	s.ConflictCommits(1)
	if err := s.CommitPlacements(key("gone"), "1", ps); !apierrors.IsNotFound(err) {
		t.Fatalf("commit to a missing source: %v; want not found", err)
	}
	x, _ := s.Get(key("a"))
	if err := s.CommitPlacements(key("a"), x.GetResourceVersion(), nil); !apierrors.IsConflict(err) {
		t.Fatalf("commit: %v; want the pending conflict", err)
	}
}

func TestCommitHook(t *testing.T) {
	s := memcluster.NewSources()
	v, _ := s.Create(key("a"), 2)
	w, _ := s.Create(key("b"), 2)
	var seen []string
	s.SetCommitHook(func(k types.NamespacedName, rv string, ps []vsched.Placement) error {
		seen = append(seen, fmt.Sprintf("%s@%s:%d", k.Name, rv, vsched.TotalVReplicas(ps)))
		if k.Name == "a" {
			return errors.New("timeout")
		}
		return nil
	})
	if err := s.CommitPlacements(key("a"), v.GetResourceVersion(), []vsched.Placement{pl("adapter-0", 2)}); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("commit of a: %v; want the hook's error", err)
	}
	if err := s.CommitPlacements(key("b"), w.GetResourceVersion(), []vsched.Placement{pl("adapter-0", 1)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"a@" + v.GetResourceVersion() + ":2", "b@" + w.GetResourceVersion() + ":1"}
	if d := cmp.Diff(want, seen); d != "" {
		t.Errorf("hook calls (-want +got):\n%s", d)
	}
	if got, _ := s.Get(key("a")); got != v {
		t.Error("a commit the hook failed was stored")
	}
	s.SetCommitHook(nil)
	if err := s.CommitPlacements(key("a"), v.GetResourceVersion(), nil); err != nil {
		t.Fatalf("commit after the hook was removed: %v", err)
	}
}
