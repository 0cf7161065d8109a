package controller

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	logtesting "knative.dev/pkg/logging/testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// srcNS is the namespace of the SampleSources in every test.
const srcNS = "apps"

var gvr = v1alpha1.GroupVersionResource

// ---------------------------------------------------------------------------
// The SampleSource API.

// apiServer is the SampleSource API as the controller sees it: client-go's
// dynamic fake clientset, plus reactors giving it the API-server behaviour
// the controller relies on and the fake lacks:
//
//   - every write stamps a fresh, increasing resourceVersion (the fake keeps
//     whatever the client sent);
//   - an update carrying a resourceVersion other than the stored one fails
//     with 409 Conflict (the fake accepts it and overwrites); one carrying
//     none is unconditional, as the API server allows for custom
//     resources, so a controller that dropped the version it read would
//     overwrite a newer object and the tests would see it;
//   - UpdateStatus changes the status only, an Update everything but the
//     status (the CRD has the status subresource), and a spec change bumps
//     metadata.generation.
//
// Every status write attempt is recorded, and a test may make another
// writer change the stored object at the moment a status write arrives
// (interfere), which is how a write decided from a stale read looks to the
// API server.
type apiServer struct {
	client *dynamicfake.FakeDynamicClient

	// mu guards what follows. The reactors run under the fake's own lock,
	// so they must not call the client; helpers used from outside take mu
	// and go to the tracker directly.
	mu     sync.Mutex
	rv     uint64
	writes []statusWrite
	// interfere, when set, is called for each status write before its
	// version is checked; a non-nil mutation it returns is applied first,
	// as another writer's update that got there first.
	interfere func(n int, sent *v1alpha1.SampleSource) func(*v1alpha1.SampleSource)
	// others are the objects the interfering writes stored.
	others    []*v1alpha1.SampleSource
	watching  chan struct{}
	watchOnce sync.Once
}

// statusWrite is one UpdateStatus request and how the server answered it.
type statusWrite struct {
	Key        types.NamespacedName
	SentRV     string // the resourceVersion the request carried
	Placements []vsched.Placement
	Conflict   bool
	NewRV      string // the version stored, when the write landed
}

func newAPIServer() *apiServer {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: v1alpha1.Kind + "List"})
	a := &apiServer{client: client, rv: 100, watching: make(chan struct{})}
	client.PrependReactor("update", v1alpha1.Resource, a.update)
	client.PrependWatchReactor(v1alpha1.Resource, func(action k8stesting.Action) (bool, watch.Interface, error) {
		w, err := client.Tracker().Watch(gvr, action.GetNamespace())
		if err == nil {
			a.watchOnce.Do(func() { close(a.watching) })
		}
		return true, w, err
	})
	return a
}

func (a *apiServer) nextRVLocked() string {
	a.rv++
	return strconv.FormatUint(a.rv, 10)
}

func (a *apiServer) getLocked(key types.NamespacedName) (*v1alpha1.SampleSource, error) {
	obj, err := a.client.Tracker().Get(gvr, key.Namespace, key.Name)
	if err != nil {
		return nil, err
	}
	return v1alpha1.FromUnstructured(obj.(*unstructured.Unstructured))
}

func (a *apiServer) storeLocked(s *v1alpha1.SampleSource) (*unstructured.Unstructured, error) {
	u, err := v1alpha1.ToUnstructured(s)
	if err != nil {
		return nil, err
	}
	if err := a.client.Tracker().Update(gvr, u, s.Namespace); err != nil {
		return nil, err
	}
	return u, nil
}

// mutateLocked applies another writer's change to the stored object, with
// the API server's bookkeeping (new version, generation on a spec change).
func (a *apiServer) mutateLocked(key types.NamespacedName, mutate func(*v1alpha1.SampleSource)) (*v1alpha1.SampleSource, error) {
	cur, err := a.getLocked(key)
	if err != nil {
		return nil, err
	}
	next := clone(cur)
	mutate(next)
	if !reflect.DeepEqual(cur.Spec, next.Spec) {
		next.Generation = cur.Generation + 1
	}
	next.ResourceVersion = a.nextRVLocked()
	if _, err := a.storeLocked(next); err != nil {
		return nil, err
	}
	return next, nil
}

// update serves Update and UpdateStatus of SampleSources.
func (a *apiServer) update(action k8stesting.Action) (bool, runtime.Object, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	u := action.(k8stesting.UpdateAction).GetObject().(*unstructured.Unstructured)
	sent, err := v1alpha1.FromUnstructured(u)
	if err != nil {
		return true, nil, apierrs.NewBadRequest(err.Error())
	}
	key := types.NamespacedName{Namespace: action.GetNamespace(), Name: sent.Name}
	status := action.GetSubresource() == "status"
	var rec *statusWrite
	if status {
		a.writes = append(a.writes, statusWrite{
			Key: key, SentRV: sent.ResourceVersion,
			Placements: append([]vsched.Placement(nil), sent.Status.Placements...),
		})
		rec = &a.writes[len(a.writes)-1]
		if a.interfere != nil {
			if m := a.interfere(len(a.writes)-1, clone(sent)); m != nil {
				other, err := a.mutateLocked(key, m)
				if err != nil {
					return true, nil, err
				}
				a.others = append(a.others, other)
			}
		}
	}
	cur, err := a.getLocked(key)
	if err != nil {
		return true, nil, err
	}
	if sent.ResourceVersion != "" && sent.ResourceVersion != cur.ResourceVersion {
		if rec != nil {
			rec.Conflict = true
		}
		return true, nil, apierrs.NewConflict(gvr.GroupResource(), sent.Name,
			errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	next, err := a.mutateLocked(key, func(n *v1alpha1.SampleSource) {
		if status {
			n.Status = sent.Status
		} else {
			n.Spec, n.Labels, n.Annotations = sent.Spec, sent.Labels, sent.Annotations
		}
	})
	if err != nil {
		return true, nil, err
	}
	if rec != nil {
		rec.NewRV = next.ResourceVersion
	}
	out, err := v1alpha1.ToUnstructured(next)
	return true, out, err
}

// create stores a new source, as kubectl apply would.
func (a *apiServer) create(t testing.TB, s *v1alpha1.SampleSource) *v1alpha1.SampleSource {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	s = clone(s)
	s.Generation = 1
	s.UID = types.UID("uid-" + s.Name)
	s.ResourceVersion = a.nextRVLocked()
	u, err := v1alpha1.ToUnstructured(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.client.Tracker().Create(gvr, u, s.Namespace); err != nil {
		t.Fatal(err)
	}
	return s
}

func (a *apiServer) delete(t testing.TB, key types.NamespacedName) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.client.Tracker().Delete(gvr, key.Namespace, key.Name); err != nil {
		t.Fatal(err)
	}
}

// get reads the stored source.
func (a *apiServer) get(t testing.TB, key types.NamespacedName) *v1alpha1.SampleSource {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.getLocked(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tryGet reads the stored source, nil when it does not exist.
func (a *apiServer) tryGet(key types.NamespacedName) *v1alpha1.SampleSource {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.getLocked(key)
	if err != nil {
		return nil
	}
	return s
}

func (a *apiServer) setInterfere(f func(n int, sent *v1alpha1.SampleSource) func(*v1alpha1.SampleSource)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.interfere = f
}

// otherWrites returns what the interfering writes stored.
func (a *apiServer) otherWrites() []*v1alpha1.SampleSource {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*v1alpha1.SampleSource(nil), a.others...)
}

// statusWrites returns the status write attempts so far, for key when it
// is not zero.
func (a *apiServer) statusWrites(key types.NamespacedName) []statusWrite {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []statusWrite
	for _, w := range a.writes {
		if key == (types.NamespacedName{}) || w.Key == key {
			out = append(out, w)
		}
	}
	return out
}

// updateActions counts the update requests (any subresource) the client
// sent.
func (a *apiServer) updateActions() int {
	n := 0
	for _, act := range a.client.Actions() {
		if act.GetVerb() == "update" {
			n++
		}
	}
	return n
}

// ---------------------------------------------------------------------------
// The reconciler on a memcluster, with a lister the test controls.

// env is a Reconciler wired as Run wires it, except that the test owns the
// source lister's cache: refresh plays the informer delivering what the API
// server stores, and leaving it out plays an informer that lags.
type env struct {
	t       *testing.T
	ctx     context.Context
	cluster *memcluster.Cluster
	api     *apiServer
	indexer cache.Indexer
	sched   *statefulset.Scheduler
	r       *Reconciler
	events  *record.FakeRecorder

	mu         sync.Mutex
	requeued   []types.NamespacedName
	enqueueAll int
	// duringSchedule, when set, runs inside each Schedule call, before
	// the decision: a test's way into the window between a decision and
	// its write.
	duringSchedule func()
}

type envOpts struct {
	replicas  int32
	capacity  int32
	notLeader bool // the scheduler leads only once promoted
	noStart   bool // the cluster's informers are not started
}

func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(logtesting.TestContextWithLogger(t))
	c, err := memcluster.New(ctx, memcluster.Options{
		Zones: []string{"zone-a", "zone-b", "zone-c"}, Replicas: o.replicas, Capacity: o.capacity,
		SyncTimeout: runTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	e := &env{t: t, ctx: ctx, cluster: c, api: newAPIServer(), events: record.NewFakeRecorder(100)}
	e.indexer = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	lister := cache.NewGenericLister(e.indexer, gvr.GroupResource())
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.sched, err = statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: c.Capacity(),
		Lister: listSources(lister),
		// The test fills the indexer itself: it is complete from the start.
		ListerSynced: func() bool { return true },
		Informers:    statefulset.InformersFromFactory(c.InformerFactory()),
		Profiles: func() config.Profiles {
			e.mu.Lock()
			f := e.duringSchedule
			e.mu.Unlock()
			if f != nil {
				f()
			}
			return profiles()
		},
		Requeue: func(k types.NamespacedName) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.requeued = append(e.requeued, k)
		},
		AlwaysLeader: !o.notLeader,
		Clock:        c.Clock(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.sched.Close)
	e.r = &Reconciler{
		sched:    &embedkit.Scheduler{Scheduler: e.sched},
		lister:   lister,
		client:   e.api.client.Resource(gvr),
		recorder: e.events,
		enqueueAll: func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.enqueueAll++
		},
	}
	if !o.noStart {
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// create stores the source and lets the lister see it.
func (e *env) create(s *v1alpha1.SampleSource) *v1alpha1.SampleSource {
	e.t.Helper()
	s = e.api.create(e.t, s)
	e.refresh(s.GetKey())
	return s
}

// refresh copies what the API server stores into the lister's cache, as
// the informer would once the watch event arrives.
func (e *env) refresh(keys ...types.NamespacedName) {
	e.t.Helper()
	for _, k := range keys {
		s := e.api.tryGet(k)
		if s == nil {
			e.unlist(k)
			continue
		}
		u, err := v1alpha1.ToUnstructured(s)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := e.indexer.Update(u); err != nil {
			e.t.Fatal(err)
		}
	}
}

// unlist removes the source from the lister's cache.
func (e *env) unlist(k types.NamespacedName) {
	e.t.Helper()
	obj, ok, err := e.indexer.GetByKey(k.String())
	if err != nil {
		e.t.Fatal(err)
	}
	if ok {
		if err := e.indexer.Delete(obj); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) reconcile(k types.NamespacedName) error {
	return e.r.Reconcile(e.ctx, k.String())
}

func (e *env) requeuedKeys() []types.NamespacedName {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]types.NamespacedName(nil), e.requeued...)
}

func (e *env) enqueueAllCalls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enqueueAll
}

// used returns what the scheduler charges each pod, by pod name (zero
// counts left out).
func (e *env) used() map[string]int32 {
	out := map[string]int32{}
	st := e.sched.Snapshot()
	for ord := range st.NumPods() {
		if u := st.Used(ord); u != 0 {
			out[e.cluster.PodName(ord)] = u
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Shared assertions.

// placed sums placements by pod name.
func placed(sources ...*v1alpha1.SampleSource) map[string]int32 {
	out := map[string]int32{}
	for _, s := range sources {
		for _, p := range s.Status.Placements {
			out[p.PodName] += p.VReplicas
		}
	}
	return out
}

// ignoreTransitionTime leaves out the one field set from the wall clock.
var ignoreTransitionTime = cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")

// scheduledCond is the Scheduled condition the controller writes.
func scheduledCond(status metav1.ConditionStatus, reason, msg string, gen int64) metav1.Condition {
	return metav1.Condition{
		Type: v1alpha1.ConditionScheduled, Status: status, Reason: reason, Message: msg, ObservedGeneration: gen,
	}
}

// checkPlacementsValid asserts the invariants every written status keeps:
// placements sum to placedVReplicas, no pod twice, no empty entry, and
// never more than desired.
func checkPlacementsValid(t testing.TB, s *v1alpha1.SampleSource) {
	t.Helper()
	if err := vsched.ValidatePlacements(s.Status.Placements); err != nil {
		t.Errorf("%s: invalid placements %v: %v", s.Name, s.Status.Placements, err)
	}
	seen := map[string]bool{}
	for _, p := range s.Status.Placements {
		if seen[p.PodName] {
			t.Errorf("%s: pod %s listed twice in %v", s.Name, p.PodName, s.Status.Placements)
		}
		seen[p.PodName] = true
		if p.VReplicas <= 0 {
			t.Errorf("%s: placement %v has no vreplicas", s.Name, p)
		}
	}
	if got := vsched.TotalVReplicas(s.Status.Placements); got != s.Status.PlacedVReplicas {
		t.Errorf("%s: placedVReplicas = %d, placements sum to %d", s.Name, s.Status.PlacedVReplicas, got)
	}
	if s.Status.PlacedVReplicas > s.Spec.VReplicas {
		t.Errorf("%s: %d vreplicas placed, %d wanted", s.Name, s.Status.PlacedVReplicas, s.Spec.VReplicas)
	}
}

// diffUsed compares what the scheduler charges each pod with what the
// sources' statuses hold: a lost or duplicated vreplica, or a reservation
// left behind by a write that did not land, shows as a difference.
func diffUsed(e *env, sources ...*v1alpha1.SampleSource) string {
	return cmp.Diff(placed(sources...), e.used(), cmpopts.EquateEmpty())
}

// settled: the status reflects the current generation.
func settled(s *v1alpha1.SampleSource) bool {
	c := s.Condition(v1alpha1.ConditionScheduled)
	return c != nil && s.Status.ObservedGeneration == s.Generation && c.ObservedGeneration == s.Generation
}

// allPlaced: settled, with every vreplica placed.
func allPlaced(s *v1alpha1.SampleSource) bool {
	c := s.Condition(v1alpha1.ConditionScheduled)
	return settled(s) && c.Status == metav1.ConditionTrue && s.Status.PlacedVReplicas == s.Spec.VReplicas
}

// eventually polls cond every millisecond until it holds or the deadline
// passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// clone deep-copies a source (the API types have no generated DeepCopy).
func clone(s *v1alpha1.SampleSource) *v1alpha1.SampleSource {
	u, err := v1alpha1.ToUnstructured(s)
	if err != nil {
		panic(err)
	}
	c, err := v1alpha1.FromUnstructured(u)
	if err != nil {
		panic(err)
	}
	return c
}

func describe(s *v1alpha1.SampleSource) string {
	if s == nil {
		return "<nil>"
	}
	c := s.Condition(v1alpha1.ConditionScheduled)
	cs := "no Scheduled condition"
	if c != nil {
		cs = fmt.Sprintf("Scheduled=%s %s %q", c.Status, c.Reason, c.Message)
	}
	return fmt.Sprintf("%s@%s gen %d spec %d placed %d %v (%s, observedGeneration %d)", s.Name, s.ResourceVersion,
		s.Generation, s.Spec.VReplicas, s.Status.PlacedVReplicas, s.Status.Placements, cs, s.Status.ObservedGeneration)
}

// recorded returns the Events recorded so far.
func (e *env) recorded() []string {
	var out []string
	for {
		select {
		case ev := <-e.events.Events:
			out = append(out, ev)
		default:
			return out
		}
	}
}
