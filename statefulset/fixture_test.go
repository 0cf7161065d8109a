package statefulset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/state"
)

// The fixture: a fake clientset holding nodes, the StatefulSet and its pods,
// watched through real shared informers, plus an in-memory store of sources
// standing in for the source objects and their status.
//
// The scheduler learns about the cluster only through its informers, so
// every mutation below waits until each running scheduler's state shows it
// (syncAll). Without that barrier a test would race the informers: the
// scheduler could decide against the cluster as it was a moment ago.

const (
	testNS  = "knative-eventing"
	testSet = "adapter"
	// syncTimeout bounds the wait for informers; they deliver in
	// milliseconds, so reaching it means an event was lost.
	syncTimeout = 20 * time.Second
)

// kafkaHAScheduler is the Kafka HA scheduler profile.
var kafkaHAScheduler = map[string]string{
	"predicates": `[
		{"Name": "PodFitsResources"},
		{"Name": "NoMaxResourceCount", "Args": "{\"NumPartitions\": 100}"}
	]`,
	"priorities": `[
		{"Name": "AvailabilityZonePriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		{"Name": "LowestOrdinalPriority", "Weight": 2},
		{"Name": "EvenPodSpread", "Weight": 2, "Args": "{\"MaxSkew\": 2}"}
	]`,
}

// designDescheduler is the descheduler profile of the design document.
var designDescheduler = map[string]string{
	"priorities": `[
		{"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		{"Name": "RemoveWithAvailabilityZonePriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		{"Name": "RemoveWithHighestOrdinalPriority", "Weight": 2}
	]`,
}

// profilesFromData builds profiles from ConfigMap data; nil means the
// default policy.
func profilesFromData(t testing.TB, sched, desched map[string]string) ProfileSource {
	t.Helper()
	var scm, dcm *corev1.ConfigMap
	if sched != nil {
		scm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultSchedulerConfigMapName}, Data: sched}
	}
	if desched != nil {
		dcm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultDeschedulerConfigMapName}, Data: desched}
	}
	ps, err := ProfilesFromConfigMaps(context.Background(), inTree, scm, dcm)
	if err != nil {
		t.Fatalf("building profiles: %v", err)
	}
	return ps
}

// ---- sources ----

func srcKey(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "sources", Name: name}
}

// sourceStore is the API server for sources (memcluster's), addressed by
// name in namespace "sources"; every write bumps one global resource
// version, as etcd's revision does, so versions compare across objects and
// over time.
type sourceStore struct {
	*memcluster.Sources
}

func newSourceStore() *sourceStore {
	return &sourceStore{memcluster.NewSources()}
}

// create adds a source wanting vreplicas, with no placements.
func (s *sourceStore) create(name string, vreplicas int32) *vsched.PlainVPod {
	return s.Put(vsched.PlainVPod{Key: srcKey(name), VReplicas: vreplicas})
}

// put stores a copy of src at a new resource version.
func (s *sourceStore) put(src *vsched.PlainVPod) *vsched.PlainVPod {
	return s.Put(*src)
}

// get returns the current snapshot, nil when absent.
func (s *sourceStore) get(name string) *vsched.PlainVPod {
	v, err := s.Get(srcKey(name))
	if err != nil {
		return nil
	}
	return v
}

// scale changes a source's spec.vreplicas.
func (s *sourceStore) scale(name string, vreplicas int32) *vsched.PlainVPod {
	v, err := s.Update(srcKey(name), vreplicas)
	if err != nil {
		panic("scale: " + err.Error())
	}
	return v
}

// writeStatus stores placements in the source's status, as the controller
// does after Schedule returns (unconditionally).
func (s *sourceStore) writeStatus(name string, ps []vsched.Placement) *vsched.PlainVPod {
	cur := s.get(name)
	if cur == nil {
		panic("writeStatus: no source " + name)
	}
	cp := *cur
	cp.Placements = ps
	return s.Put(cp)
}

func (s *sourceStore) remove(name string) {
	_ = s.Delete(srcKey(name)) // absent is removed too
}

// ---- cluster ----

type nodeModel struct {
	zone     string
	ready    bool
	cordoned bool
}

type podModel struct {
	node     string // "" while unbound
	draining bool
}

type runningScheduler struct {
	s      *Scheduler
	cancel context.CancelFunc
}

// kubeCluster is the fake API server with nodes, the StatefulSet and its
// pods, and the model the informers must converge to.
type kubeCluster struct {
	t      testing.TB
	client *fake.Clientset

	watchMu   sync.Mutex
	watchCond *sync.Cond
	watches   int

	mu       sync.Mutex
	nodes    map[string]*nodeModel
	pods     map[int32]*podModel
	replicas int32
	running  []*runningScheduler

	store *sourceStore
}

func newKubeCluster(t testing.TB) *kubeCluster {
	t.Helper()
	c := &kubeCluster{
		t: t,
		// The simple clientset skips field management, which the tests do not
		// need and which makes NewClientset cost ~0.2 s each under -race.
		client: fake.NewSimpleClientset(),
		nodes:  map[string]*nodeModel{},
		pods:   map[int32]*podModel{},
		store:  newSourceStore(),
	}
	c.watchCond = sync.NewCond(&c.watchMu)
	// The fake clientset does not replay events between an informer's
	// List and its Watch, so an object created in that window would never
	// reach the informer. Counting established watches lets start wait
	// until every informer is watching before the test goes on.
	c.client.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := c.client.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		c.watchMu.Lock()
		c.watches++
		c.watchCond.Broadcast()
		c.watchMu.Unlock()
		return true, w, nil
	})
	c.apply(&appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: testSet},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptrTo(int32(0))},
	}, true)
	return c
}

func ptrTo[T any](v T) *T { return &v }

// apply creates or updates obj in the fake API server.
func (c *kubeCluster) apply(obj runtime.Object, create bool) {
	c.t.Helper()
	ctx := context.Background()
	var err error
	switch o := obj.(type) {
	case *corev1.Node:
		if create {
			_, err = c.client.CoreV1().Nodes().Create(ctx, o, metav1.CreateOptions{})
		} else {
			_, err = c.client.CoreV1().Nodes().Update(ctx, o, metav1.UpdateOptions{})
		}
	case *corev1.Pod:
		if create {
			_, err = c.client.CoreV1().Pods(testNS).Create(ctx, o, metav1.CreateOptions{})
		} else {
			_, err = c.client.CoreV1().Pods(testNS).Update(ctx, o, metav1.UpdateOptions{})
		}
	case *appsv1.StatefulSet:
		if create {
			_, err = c.client.AppsV1().StatefulSets(testNS).Create(ctx, o, metav1.CreateOptions{})
		} else {
			_, err = c.client.AppsV1().StatefulSets(testNS).Update(ctx, o, metav1.UpdateOptions{})
		}
	default:
		err = fmt.Errorf("unexpected object %T", obj)
	}
	if err != nil {
		c.t.Fatalf("writing %T: %v", obj, err)
	}
}

func nodeObject(name string, m *nodeModel) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{state.DefaultZoneLabel: m.zone}},
		Spec:       corev1.NodeSpec{Unschedulable: m.cordoned},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue},
		}},
	}
	if !m.ready {
		// What the node lifecycle controller does to a node it lost.
		n.Status.Conditions[0].Status = corev1.ConditionUnknown
		n.Spec.Taints = []corev1.Taint{
			{Key: state.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
			{Key: state.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute},
		}
	}
	return n
}

func podObject(ord int32, m *podModel) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: vsched.PodName(testSet, ord), Labels: map[string]string{"app": testSet}},
		Spec:       corev1.PodSpec{NodeName: m.node},
	}
	if m.draining {
		p.Annotations = map[string]string{state.DefaultDrainingAnnotation: "true"}
	}
	return p
}

// write changes the model under the lock, writes the object f returns
// (creating it when create) and waits until every scheduler has seen it.
func (c *kubeCluster) write(f func() (obj runtime.Object, create bool)) {
	c.t.Helper()
	func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.apply(f())
	}()
	c.syncAll()
}

// addModel adds m to models under key, and its object.
func addModel[K comparable, M any, O runtime.Object](c *kubeCluster, models map[K]*M, key K, m *M, object func(K, *M) O) {
	c.write(func() (runtime.Object, bool) {
		models[key] = m
		return object(key, m), true
	})
}

// updateModel changes the model under key with f, and its object.
func updateModel[K comparable, M any, O runtime.Object](c *kubeCluster, models map[K]*M, key K, f func(*M), object func(K, *M) O) {
	c.write(func() (runtime.Object, bool) {
		m := models[key]
		if m == nil {
			c.t.Fatalf("no node or pod %v", key)
		}
		f(m)
		return object(key, m), false
	})
}

// addNode adds a Ready node in zone.
func (c *kubeCluster) addNode(name, zone string) *kubeCluster {
	addModel(c, c.nodes, name, &nodeModel{zone: zone, ready: true}, nodeObject)
	return c
}

// cordon marks the node unschedulable (or schedulable again).
func (c *kubeCluster) cordon(name string, cordoned bool) {
	updateModel(c, c.nodes, name, func(m *nodeModel) { m.cordoned = cordoned }, nodeObject)
}

// setReady makes the node Ready, or NotReady and tainted unreachable.
func (c *kubeCluster) setReady(name string, ready bool) {
	updateModel(c, c.nodes, name, func(m *nodeModel) { m.ready = ready }, nodeObject)
}

// addPod creates the pod with the ordinal, bound to node ("" for unbound).
func (c *kubeCluster) addPod(ord int32, node string) *kubeCluster {
	addModel(c, c.pods, ord, &podModel{node: node}, podObject)
	return c
}

// drain sets or clears the pod's draining annotation.
func (c *kubeCluster) drain(ord int32, draining bool) {
	updateModel(c, c.pods, ord, func(m *podModel) { m.draining = draining }, podObject)
}

// bind binds an unbound pod to node.
func (c *kubeCluster) bind(ord int32, node string) {
	updateModel(c, c.pods, ord, func(m *podModel) { m.node = node }, podObject)
}

func (c *kubeCluster) deletePod(ord int32) {
	c.mu.Lock()
	delete(c.pods, ord)
	err := c.client.CoreV1().Pods(testNS).Delete(context.Background(), vsched.PodName(testSet, ord), metav1.DeleteOptions{})
	c.mu.Unlock()
	if err != nil {
		c.t.Fatalf("deleting pod %d: %v", ord, err)
	}
	c.syncAll()
}

// scale sets the StatefulSet's spec.replicas.
func (c *kubeCluster) scale(replicas int32) *kubeCluster {
	c.write(func() (runtime.Object, bool) {
		c.replicas = replicas
		return &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: testSet},
			Spec:       appsv1.StatefulSetSpec{Replicas: ptrTo(replicas)},
		}, false
	})
	return c
}

// zones3 builds the standard cluster of most tests: three zones with one
// node each, and pods spread round-robin over them (adapter-0 in zone-a,
// adapter-1 in zone-b, adapter-2 in zone-c, adapter-3 in zone-a, ...).
func zones3(t testing.TB, pods int32) *kubeCluster {
	c := newKubeCluster(t)
	c.addNode("node-a", "zone-a").addNode("node-b", "zone-b").addNode("node-c", "zone-c")
	nodes := []string{"node-a", "node-b", "node-c"}
	for i := int32(0); i < pods; i++ {
		c.addPod(i, nodes[i%3])
	}
	return c.scale(pods)
}

// startOpts adjusts a scheduler's Config before it starts.
type startOpts func(*Config)

// start builds a scheduler over the cluster with its own informer factory
// (as a new process would), starts the informers and waits until the state
// shows the whole cluster. By default it is always leader, has capacity 10,
// the default policy, and lists the cluster's source store.
func (c *kubeCluster) start(opts ...startOpts) *Scheduler {
	c.t.Helper()
	s, err := c.tryStart(quietCtx(), opts...)
	if err != nil {
		c.t.Fatalf("New: %v", err)
	}
	return s
}

func (c *kubeCluster) tryStart(ctx context.Context, opts ...startOpts) (*Scheduler, error) {
	c.t.Helper()
	factory := informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithNamespace(testNS))
	cfg := Config{
		Namespace:    testNS,
		Name:         testSet,
		Capacity:     10,
		Lister:       c.store.List,
		ListerSynced: c.store.HasSynced,
		Informers:    InformersFromFactory(factory),
		AlwaysLeader: true,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Profiles == nil {
		cfg.Profiles = profilesFromData(c.t, nil, nil)
	}
	s, err := New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	c.watchMu.Lock()
	before := c.watches
	c.watchMu.Unlock()
	runCtx, cancel := context.WithCancel(context.Background())
	factory.Start(runCtx.Done())
	// factory.WaitForCacheSync polls every 100ms; tests start many
	// schedulers, so poll faster.
	synced := []func() bool{
		factory.Core().V1().Pods().Informer().HasSynced,
		factory.Core().V1().Nodes().Informer().HasSynced,
		factory.Apps().V1().StatefulSets().Informer().HasSynced,
		s.HasSynced, // the scheduler's own handlers have replayed the lists
	}
	deadline := time.Now().Add(syncTimeout)
	for _, f := range synced {
		for !f() {
			if time.Now().After(deadline) {
				cancel()
				c.t.Fatalf("informers did not sync")
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
	// Pods, nodes and the StatefulSet: three watches.
	c.watchMu.Lock()
	for c.watches < before+3 {
		c.watchCond.Wait()
	}
	c.watchMu.Unlock()
	rs := &runningScheduler{s: s, cancel: func() { cancel(); factory.Shutdown() }}
	c.mu.Lock()
	c.running = append(c.running, rs)
	c.mu.Unlock()
	c.t.Cleanup(func() { c.stop(s) })
	c.syncAll()
	return s, nil
}

// stop stops a scheduler's informers, as when its process exits.
func (c *kubeCluster) stop(s *Scheduler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, rs := range c.running {
		if rs.s == s {
			rs.cancel()
			c.running = append(c.running[:i], c.running[i+1:]...)
			return
		}
	}
}

// syncAll waits until every running scheduler's state shows the model.
func (c *kubeCluster) syncAll() {
	c.t.Helper()
	c.mu.Lock()
	running := append([]*runningScheduler(nil), c.running...)
	c.mu.Unlock()
	for _, rs := range running {
		c.waitSynced(rs.s)
	}
}

func (c *kubeCluster) waitSynced(s *Scheduler) {
	c.t.Helper()
	deadline := time.Now().Add(syncTimeout)
	for {
		c.mu.Lock()
		var diff string
		s.withState(func(st *state.State) { diff = c.diff(st) })
		c.mu.Unlock()
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("scheduler state did not converge to the cluster: %s", diff)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// diff describes the first difference between the state and the model, ""
// when there is none. Called with c.mu held.
func (c *kubeCluster) diff(st *state.State) string {
	if st.Replicas() != c.replicas {
		return fmt.Sprintf("replicas %d, want %d", st.Replicas(), c.replicas)
	}
	n := st.NumPods()
	for ord := range c.pods {
		n = max(n, ord+1)
	}
	for ord := int32(0); ord < n; ord++ {
		m := c.pods[ord]
		info, ok := st.Pod(ord)
		if m == nil {
			if ok {
				return fmt.Sprintf("pod %d exists in the state only", ord)
			}
			continue
		}
		if !ok {
			return fmt.Sprintf("pod %d missing from the state", ord)
		}
		if info.Node != m.node {
			return fmt.Sprintf("pod %d on node %q, want %q", ord, info.Node, m.node)
		}
		if st.Draining(ord) != m.draining {
			return fmt.Sprintf("pod %d draining %v, want %v", ord, st.Draining(ord), m.draining)
		}
		want := c.candidate(ord)
		if info.Candidate != want {
			return fmt.Sprintf("pod %d candidate %v (%s), want %v", ord, info.Candidate, info.Reason, want)
		}
		if nm := c.nodes[m.node]; nm != nil && info.Zone != nm.zone {
			return fmt.Sprintf("pod %d in zone %q, want %q", ord, info.Zone, nm.zone)
		}
	}
	return ""
}

// candidate says whether new vreplicas may go to the pod, by the model.
// Called with c.mu held.
func (c *kubeCluster) candidate(ord int32) bool {
	m := c.pods[ord]
	if m == nil || ord >= c.replicas || m.node == "" || m.draining {
		return false
	}
	nm := c.nodes[m.node]
	return nm != nil && nm.ready && !nm.cordoned
}

// ---- helpers ----

// quietCtx is a context whose logger discards everything; tests that check
// logging install an observer instead.
func quietCtx() context.Context {
	return logging.WithLogger(context.Background(), zap.NewNop().Sugar())
}

// placements builds a placement list from ordinal/count pairs.
func placements(pairs ...int32) []vsched.Placement {
	out := make([]vsched.Placement, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, vsched.Placement{PodName: vsched.PodName(testSet, pairs[i]), VReplicas: pairs[i+1]})
	}
	return out
}

// counts maps ordinal to vreplicas, failing on anything but a valid,
// non-duplicated pod of the StatefulSet.
func counts(t testing.TB, ps []vsched.Placement) map[int32]int32 {
	t.Helper()
	if err := vsched.ValidatePlacements(ps); err != nil {
		t.Fatalf("invalid placements %v: %v", ps, err)
	}
	out := map[int32]int32{}
	for _, p := range ps {
		if p.VReplicas == 0 {
			continue
		}
		if !strings.HasPrefix(p.PodName, testSet+"-") {
			t.Fatalf("placement on a pod of another StatefulSet: %v", ps)
		}
		ord, _ := vsched.OrdinalFromPodName(p.PodName)
		out[ord] += p.VReplicas
	}
	return out
}

// short renders placements as "0:2 1:1" for messages.
func short(ps []vsched.Placement) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		ord, err := vsched.OrdinalFromPodName(p.PodName)
		if err != nil {
			parts = append(parts, fmt.Sprintf("%s:%d", p.PodName, p.VReplicas))
			continue
		}
		parts = append(parts, fmt.Sprintf("%d:%d", ord, p.VReplicas))
	}
	return strings.Join(parts, " ")
}

// wantPlacements compares ordinal:count pairs, ignoring node and zone.
func wantPlacements(t testing.TB, got []vsched.Placement, pairs ...int32) {
	t.Helper()
	if g, w := short(got), short(placements(pairs...)); g != w {
		t.Fatalf("placements = [%s], want [%s]", g, w)
	}
}

// scheduleOK schedules the source's current snapshot and writes the result
// to its status, failing on any error.
func scheduleOK(t testing.TB, s *Scheduler, c *kubeCluster, name string) []vsched.Placement {
	t.Helper()
	ps, err := s.Schedule(quietCtx(), c.store.get(name))
	if err != nil {
		t.Fatalf("Schedule(%s): %v", name, err)
	}
	c.store.writeStatus(name, ps)
	return ps
}

// used is what the state counts on each pod, committed and reserved.
func used(s *Scheduler) map[int32]int32 {
	out := map[int32]int32{}
	s.withState(func(st *state.State) {
		for ord := int32(0); ord < st.NumPods(); ord++ {
			if u := st.Used(ord); u != 0 {
				out[ord] = u
			}
		}
	})
	return out
}

func reservation(s *Scheduler, name string) (state.Reservation, bool) {
	var r state.Reservation
	var ok bool
	s.withState(func(st *state.State) { r, ok = st.ReservationOf(srcKey(name)) })
	return r, ok
}

// recorder collects Requeue and pending-hook callbacks, which arrive from
// informer goroutines as well as from Schedule.
type recorder struct {
	mu       sync.Mutex
	requeued []types.NamespacedName
	pending  int
}

func (r *recorder) requeue(k types.NamespacedName) {
	r.mu.Lock()
	r.requeued = append(r.requeued, k)
	r.mu.Unlock()
}

func (r *recorder) onPending() {
	r.mu.Lock()
	r.pending++
	r.mu.Unlock()
}

// take returns and clears the requeued keys.
func (r *recorder) take() []types.NamespacedName {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.requeued
	r.requeued = nil
	return out
}

func (r *recorder) pendingCalls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pending
}

func (r *recorder) opts(cfg *Config) { cfg.Requeue = r.requeue }

// start starts a scheduler on c that reports to r: its requeues, and its
// pending hook.
func (r *recorder) start(c *kubeCluster, opts ...startOpts) *Scheduler {
	c.t.Helper()
	s := c.start(append(opts, r.opts)...)
	s.SetPendingHook(r.onPending)
	return s
}

func contains(keys []types.NamespacedName, k types.NamespacedName) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

var errListerDown = errors.New("source lister unavailable")
