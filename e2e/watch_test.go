//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
)

// statusWatch sees every version of every source and of the adapter
// StatefulSet that the API server sends, and checks two things.
//
// As versions arrive, that no source's status lacks vreplicas it had:
// between two consecutive versions, the placed count may only fall to the
// new spec.vreplicas (a scale-down), never below it, so a move (compaction,
// a drained pod) never leaves a vreplica out of the status.
//
// In check, every observed moment: the versions of both kinds are replayed
// in resourceVersion order, which on this etcd-backed API server is the
// order of the writes (etcd's revision; a test-only assumption, clients must
// not compare resource versions), and after each one no pod holds more than
// its capacity, counting every source's committed status, and no vreplica
// is placed on an ordinal at or beyond the StatefulSet's spec.replicas. The
// two watches deliver independently, so checking as events arrive would
// see a status against a size from another moment.
type statusWatch struct {
	mu         sync.Mutex
	versions   int
	violations []string
	history    []version
	// lastRV is the newest resource version delivered, and seen the
	// newest per object, so check can wait until the watch caught up.
	lastRV int64
	seen   map[string]int64
	stop   chan struct{}
	// podCapacity is the controller's --capacity (0: capacity).
	podCapacity int32
	// informer holds the sources as the watch last saw them.
	informer cache.SharedIndexInformer
}

func (w *statusWatch) capacity() int32 {
	if w.podCapacity > 0 {
		return w.podCapacity
	}
	return capacity
}

// version is one write the watch saw: a source's status (placements nil
// when deleted) or the StatefulSet's size.
type version struct {
	rv         int64
	source     string // "" for the StatefulSet
	placements []vsched.Placement
	replicas   int32
}

func (e *env) watchStatuses() *statusWatch {
	w := &statusWatch{stop: make(chan struct{}), seen: map[string]int64{}}
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(e.cp.Dynamic, 0, sourcesNS, nil)
	inf := f.ForResource(v1alpha1.GroupVersionResource).Informer()
	w.informer = inf
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { w.source(obj, false) },
		UpdateFunc: func(oldObj, newObj any) {
			w.lacks(oldObj, newObj)
			w.source(newObj, false)
		},
		DeleteFunc: func(obj any) { w.source(obj, true) },
	})
	kf := informers.NewSharedInformerFactoryWithOptions(e.cp.Kube, 0, informers.WithNamespace(systemNS))
	_, _ = kf.Apps().V1().StatefulSets().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.statefulSet(obj) },
		UpdateFunc: func(_, obj any) { w.statefulSet(obj) },
	})
	f.Start(w.stop)
	kf.Start(w.stop)
	e.t.Cleanup(func() { close(w.stop) })
	f.WaitForCacheSync(w.stop)
	kf.WaitForCacheSync(w.stop)
	return w
}

// lacks records a status that lost vreplicas it had.
func (w *statusWatch) lacks(oldObj, newObj any) {
	o, err1 := v1alpha1.FromUnstructured(oldObj.(*unstructured.Unstructured))
	n, err2 := v1alpha1.FromUnstructured(newObj.(*unstructured.Unstructured))
	if err1 != nil || err2 != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.versions++
	was, now := vsched.TotalVReplicas(o.Status.Placements), vsched.TotalVReplicas(n.Status.Placements)
	if now < min(was, n.Spec.VReplicas) {
		w.violations = append(w.violations, fmt.Sprintf("%s %s: placed %d -> %d with vreplicas %d (rv %s -> %s)",
			time.Now().Format("15:04:05.000"), n.Name, was, now, n.Spec.VReplicas, o.ResourceVersion, n.ResourceVersion))
	}
}

// source records a version of a source. A deletion's object carries the
// deletion's resource version; a tombstone (a deletion missed while the
// watch was down) does not, and is put after everything seen so far.
func (w *statusWatch) source(obj any, deleted bool) {
	tomb, isTomb := obj.(cache.DeletedFinalStateUnknown)
	if isTomb {
		obj = tomb.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	src, err := v1alpha1.FromUnstructured(u)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	rv := w.parseRV(src.ResourceVersion)
	if isTomb {
		rv = w.lastRV
	}
	v := version{rv: rv, source: src.Name}
	if !deleted {
		v.placements = append([]vsched.Placement{}, src.Status.Placements...)
	}
	w.add(v, "source/"+src.Name)
}

func (w *statusWatch) statefulSet(obj any) {
	set, ok := obj.(*appsv1.StatefulSet)
	if !ok || set.Name != adapterName {
		return
	}
	replicas := int32(1)
	if set.Spec.Replicas != nil {
		replicas = *set.Spec.Replicas
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.add(version{rv: w.parseRV(set.ResourceVersion), replicas: replicas}, "statefulset")
}

// add records v; w.mu is held.
func (w *statusWatch) add(v version, object string) {
	w.history = append(w.history, v)
	w.lastRV = max(w.lastRV, v.rv)
	w.seen[object] = max(w.seen[object], v.rv)
}

// parseRV reads a resource version as etcd's revision; w.mu is held.
func (w *statusWatch) parseRV(rv string) int64 {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		w.violations = append(w.violations, fmt.Sprintf("resource version %q is not a number: the replay needs etcd's revisions", rv))
	}
	return n
}

// check waits until the watch has seen the API server's current version of
// every source and of the StatefulSet, then reports what it found.
func (w *statusWatch) check(e *env) {
	e.t.Helper()
	e.waitCaughtUp(w)
	w.mu.Lock()
	defer w.mu.Unlock()
	moments, bad := replay(w.history, w.capacity())
	e.t.Logf("status watch: %d source versions observed; %d moments replayed", w.versions, moments)
	for _, v := range w.violations {
		e.t.Errorf("vreplicas missing from a status: %s", v)
	}
	const most = 10
	for i, v := range bad {
		if i == most {
			e.t.Errorf("... and %d more moments that break the invariants", len(bad)-most)
			break
		}
		e.t.Errorf("at an observed moment: %s", v)
	}
}

// waitCaughtUp waits until the watch has delivered the version the API
// server now holds of every source and of the StatefulSet.
func (e *env) waitCaughtUp(w *statusWatch) {
	e.t.Helper()
	err := wait.PollUntilContextCancel(e.ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		list, err := e.sources().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		set, err := e.cp.Kube.AppsV1().StatefulSets(systemNS).Get(ctx, adapterName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		want := map[string]string{"statefulset": set.ResourceVersion}
		for _, u := range list.Items {
			want["source/"+u.GetName()] = u.GetResourceVersion()
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		for obj, rv := range want {
			n, _ := strconv.ParseInt(rv, 10, 64)
			if w.seen[obj] < n {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		e.t.Fatalf("the status watch did not catch up with the API server: %v", err)
	}
}

// replay applies the versions in resource-version order and returns how
// many moments it checked and what broke at each moment that broke
// something, with pods of podCapacity vreplicas. It keeps the vreplicas per
// pod as it goes, so a moment costs the pods, not the sources (TestScale
// replays tens of thousands of versions of 10,000 sources).
func replay(history []version, podCapacity int32) (int, []string) {
	h := append([]version(nil), history...)
	sort.SliceStable(h, func(i, j int) bool { return h[i].rv < h[j].rv })
	m := moment{placed: map[string][]vsched.Placement{}, perPod: map[int32]int32{}, foreign: map[string][]string{}, replicas: -1}
	moments := 0
	var bad []string
	for i := 0; i < len(h); {
		rv := h[i].rv
		for ; i < len(h) && h[i].rv == rv; i++ {
			if v := h[i]; v.source == "" {
				m.replicas = v.replicas
			} else {
				m.set(v.source, v.placements)
			}
		}
		moments++
		if problems := m.violations(podCapacity); len(problems) > 0 {
			bad = append(bad, fmt.Sprintf("rv %d: %v", rv, problems))
		}
	}
	return moments, bad
}

// moment is the committed state at one resource version: each source's
// placements, their sum by pod ordinal, the placements naming no pod of the
// StatefulSet by source, and the StatefulSet's replicas (-1: not seen yet).
type moment struct {
	placed   map[string][]vsched.Placement
	perPod   map[int32]int32
	foreign  map[string][]string
	replicas int32
}

// set replaces the source's placements (nil: deleted).
func (m *moment) set(source string, ps []vsched.Placement) {
	m.add(m.placed[source], -1)
	delete(m.foreign, source)
	delete(m.placed, source)
	if ps == nil {
		return
	}
	m.placed[source] = ps
	m.add(ps, 1)
	for _, p := range ps {
		if _, err := vsched.OrdinalFromPodName(p.PodName); err != nil {
			m.foreign[source] = append(m.foreign[source], fmt.Sprintf("%s has %d on %s, not a pod of the StatefulSet", source, p.VReplicas, p.PodName))
		}
	}
}

func (m *moment) add(ps []vsched.Placement, sign int32) {
	for _, p := range ps {
		if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil {
			if m.perPod[ord] += sign * p.VReplicas; m.perPod[ord] == 0 {
				delete(m.perPod, ord)
			}
		}
	}
}

// violations lists the placements on no pod of the StatefulSet, then, by
// pod in ordinal order, the pods over capacity and those holding vreplicas
// at or beyond the replicas (not checked before the StatefulSet was seen);
// after four, it counts the rest.
func (m *moment) violations(podCapacity int32) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(m.foreign)) {
		out = append(out, m.foreign[name]...)
	}
	for _, ord := range slices.Sorted(maps.Keys(m.perPod)) {
		n := m.perPod[ord]
		if n > podCapacity {
			out = append(out, fmt.Sprintf("%s holds %d, over its capacity %d", vsched.PodName(adapterName, ord), n, podCapacity))
		}
		if m.replicas >= 0 && ord >= m.replicas && n > 0 {
			out = append(out, fmt.Sprintf("%s holds %d, at or beyond replicas %d", vsched.PodName(adapterName, ord), n, m.replicas))
		}
	}
	if len(out) > 4 {
		out = append(out[:4], fmt.Sprintf("and %d more", len(out)-4))
	}
	return out
}

// TestReplay checks the watch's replay itself (no control plane): the
// versions arrive out of order across the two watches, and only the moments
// in resource-version order count.
func TestReplay(t *testing.T) {
	on := func(pairs ...int32) []vsched.Placement {
		var out []vsched.Placement
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, vsched.Placement{PodName: vsched.PodName(adapterName, pairs[i]), VReplicas: pairs[i+1]})
		}
		return out
	}
	tests := []struct {
		name    string
		history []version
		want    []string
	}{{
		name: "moved off before the shrink, delivered after it",
		history: []version{
			{rv: 1, replicas: 3},
			{rv: 2, source: "a", placements: on(2, 4)},
			{rv: 5, replicas: 2}, // the StatefulSet's watch is ahead
			{rv: 4, source: "a", placements: on(0, 4)},
		},
	}, {
		name: "placed beyond the replicas after the shrink",
		history: []version{
			{rv: 1, replicas: 3},
			{rv: 2, replicas: 2},
			{rv: 3, source: "a", placements: on(2, 4)},
			{rv: 4, source: "a", placements: on(0, 4)},
		},
		want: []string{"rv 3: [sample-adapter-2 holds 4, at or beyond replicas 2]"},
	}, {
		name: "over capacity until a deletion",
		history: []version{
			{rv: 1, replicas: 2},
			{rv: 2, source: "a", placements: on(0, 6)},
			{rv: 3, source: "b", placements: on(0, 5, 1, 1)},
			{rv: 4, source: "a"},
		},
		want: []string{"rv 3: [sample-adapter-0 holds 11, over its capacity 10]"},
	}, {
		name: "scaled to 0 under committed vreplicas",
		history: []version{
			{rv: 1, replicas: 5},
			{rv: 2, source: "a", placements: on(0, 1, 1, 1, 2, 1, 3, 1, 4, 1)},
			{rv: 3, replicas: 0},
		},
		want: []string{"rv 3: [sample-adapter-0 holds 1, at or beyond replicas 0 sample-adapter-1 holds 1, at or beyond replicas 0 sample-adapter-2 holds 1, at or beyond replicas 0 sample-adapter-3 holds 1, at or beyond replicas 0 and 1 more]"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := replay(tt.history, capacity)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("violations (-want +got):\n%s", d)
			}
		})
	}
}
