package statefulset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/state"
)

// The tests' cluster is a memcluster.Cluster: nodes, the StatefulSet and
// its pods in client-go's fake clientset, read through real informers, and
// a memcluster.Sources for the sources. Every scheduler a test starts
// registers its handlers on the cluster's informer factory, so each
// mutation below returns only once every running scheduler's handlers have
// seen it (memcluster's Sync). Without that barrier a test would race the
// informers: the scheduler could decide against the cluster as it was a
// moment ago.

const (
	testNS  = "knative-eventing"
	testSet = "adapter"
	// syncTimeout bounds the wait for informers; they deliver in
	// milliseconds, so reaching it means an event was lost.
	syncTimeout = memcluster.DefaultSyncTimeout
)

// kubeCluster is a started memcluster with the tests' source store, its
// mutators failing the test on error and waiting for every handler.
type kubeCluster struct {
	*memcluster.Cluster
	t     testing.TB
	store *sourceStore
	// running are the schedulers started and not stopped, whose state
	// syncAll checks against the cluster; tests start and stop them from
	// several goroutines.
	mu      sync.Mutex
	running []*Scheduler
}

// newKubeCluster starts a cluster with no node and a StatefulSet of no
// replicas; opts adjust its memcluster.Options.
func newKubeCluster(t testing.TB, opts ...func(*memcluster.Options)) *kubeCluster {
	t.Helper()
	o := memcluster.Options{Namespace: testNS, StatefulSetName: testSet, NoNodes: true, SyncTimeout: syncTimeout}
	for _, f := range opts {
		f(&o)
	}
	mc, err := memcluster.New(context.Background(), o)
	if err != nil {
		t.Fatalf("memcluster.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); mc.Shutdown() })
	if err := mc.Start(ctx); err != nil {
		t.Fatalf("memcluster.Start: %v", err)
	}
	return &kubeCluster{Cluster: mc, t: t, store: newSourceStore()}
}

// zones3 builds the standard cluster of most tests: three zones with one
// node each, and pods spread round-robin over them (adapter-0 in zone-a,
// adapter-1 in zone-b, adapter-2 in zone-c, adapter-3 in zone-a, ...),
// memcluster's rule for placing pods.
func zones3(t testing.TB, pods int32) *kubeCluster {
	return newKubeCluster(t, func(o *memcluster.Options) {
		o.NoNodes = false
		o.Nodes = []memcluster.NodeSpec{{Name: "node-a", Zone: "zone-a"}, {Name: "node-b", Zone: "zone-b"}, {Name: "node-c", Zone: "zone-c"}}
		o.Replicas = pods
	})
}

// must fails the test on a mutator's error, else waits until every
// running scheduler's handlers have seen the write.
func (c *kubeCluster) must(what string, err error) {
	c.t.Helper()
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	c.syncAll()
}

// syncAll waits until every running scheduler has seen every write, and
// checks that its state then shows the cluster.
func (c *kubeCluster) syncAll() {
	c.t.Helper()
	if err := c.Sync(context.Background()); err != nil {
		c.t.Fatalf("scheduler state did not converge to the cluster: %v", err)
	}
	c.mu.Lock()
	running := slices.Clone(c.running)
	c.mu.Unlock()
	for _, s := range running {
		var diff string
		s.withState(func(st *state.State) { diff = c.diff(st) })
		if diff != "" {
			c.t.Fatalf("scheduler state did not converge to the cluster: %s", diff)
		}
	}
}

// diff describes the first difference between the state and the cluster,
// "" when there is none.
func (c *kubeCluster) diff(st *state.State) string {
	replicas := c.replicas()
	if st.Replicas() != replicas {
		return fmt.Sprintf("replicas %d, want %d", st.Replicas(), replicas)
	}
	ords, err := c.PodOrdinals()
	if err != nil {
		c.t.Fatal(err)
	}
	n := st.NumPods()
	if len(ords) > 0 {
		n = max(n, ords[len(ords)-1]+1)
	}
	for ord := int32(0); ord < n; ord++ {
		if d := c.podDiff(st, ord, replicas); d != "" {
			return d
		}
	}
	return ""
}

// podDiff is diff for one ordinal.
func (c *kubeCluster) podDiff(st *state.State, ord, replicas int32) string {
	p := c.pod(ord)
	info, ok := st.Pod(ord)
	switch {
	case p == nil && ok:
		return fmt.Sprintf("pod %d exists in the state only", ord)
	case p == nil:
		return ""
	case !ok:
		return fmt.Sprintf("pod %d missing from the state", ord)
	case info.Node != p.node:
		return fmt.Sprintf("pod %d on node %q, want %q", ord, info.Node, p.node)
	case st.Draining(ord) != p.draining:
		return fmt.Sprintf("pod %d draining %v, want %v", ord, st.Draining(ord), p.draining)
	}
	want := ord < replicas && p.node != "" && !p.draining
	if want {
		n := c.node(p.node)
		want = n.ready && !n.cordoned
	}
	if info.Candidate != want {
		return fmt.Sprintf("pod %d candidate %v (%s), want %v", ord, info.Candidate, info.Reason, want)
	}
	if p.node != "" && info.Zone != c.zoneOf(p.node) {
		return fmt.Sprintf("pod %d in zone %q, want %q", ord, info.Zone, c.zoneOf(p.node))
	}
	return ""
}

// zoneOf is the node's zone, "" for an unknown node.
func (c *kubeCluster) zoneOf(node string) string {
	for _, n := range c.Nodes() {
		if n.Name == node {
			return n.Zone
		}
	}
	return ""
}

// addNode adds a Ready node in zone.
func (c *kubeCluster) addNode(name, zone string) *kubeCluster {
	c.must("adding node "+name, c.AddNode(memcluster.NodeSpec{Name: name, Zone: zone}))
	return c
}

// cordon marks the node unschedulable (or schedulable again).
func (c *kubeCluster) cordon(name string, cordoned bool) {
	if cordoned {
		c.must("cordoning "+name, c.Cordon(name))
	} else {
		c.must("uncordoning "+name, c.Uncordon(name))
	}
}

// setReady makes the node Ready, or NotReady and tainted unreachable.
func (c *kubeCluster) setReady(name string, ready bool) {
	if ready {
		c.must("recovering "+name, c.RecoverNode(name))
	} else {
		c.must("failing "+name, c.FailNode(name))
	}
}

// addPod creates the pod with the ordinal, bound to node ("" for unbound).
func (c *kubeCluster) addPod(ord int32, node string) *kubeCluster {
	c.must("creating a pod", c.CreatePod(ord, node))
	return c
}

// drain sets or clears the pod's draining annotation.
func (c *kubeCluster) drain(ord int32, draining bool) {
	c.must("setting draining", c.SetDraining(ord, draining))
}

// bind binds an unbound pod to node.
func (c *kubeCluster) bind(ord int32, node string) { c.must("binding a pod", c.BindPod(ord, node)) }

func (c *kubeCluster) deletePod(ord int32) { c.must("deleting a pod", c.DeletePod(ord)) }

// scale sets the StatefulSet's spec.replicas; the pods stay as they are.
func (c *kubeCluster) scale(replicas int32) *kubeCluster {
	c.must("scaling", c.SetReplicas(replicas))
	return c
}

// podSeen is what the tests read of a pod; nil when it does not exist.
type podSeen struct {
	node     string // "" while unbound
	draining bool
}

func (c *kubeCluster) pod(ord int32) *podSeen {
	c.t.Helper()
	p, err := c.Pod(ord)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	v, has := p.Annotations[evictor.DefaultAnnotation]
	return &podSeen{node: p.Spec.NodeName, draining: has && v != "false"}
}

// nodeSeen is what the tests read of a node object.
type nodeSeen struct{ ready, cordoned bool }

func (c *kubeCluster) node(name string) nodeSeen {
	c.t.Helper()
	n, err := c.Node(name)
	if err != nil {
		c.t.Fatal(err)
	}
	v := nodeSeen{cordoned: n.Spec.Unschedulable}
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			v.ready = cond.Status == corev1.ConditionTrue
		}
	}
	return v
}

// replicas is the StatefulSet's spec.replicas.
func (c *kubeCluster) replicas() int32 {
	c.t.Helper()
	set, err := c.StatefulSet()
	if err != nil {
		c.t.Fatal(err)
	}
	return *set.Spec.Replicas
}

// startOpts adjusts a scheduler's Config before it starts.
type startOpts func(*Config)

// start builds a scheduler over the cluster's informers and waits until its
// state shows the whole cluster. By default it is always leader, has
// capacity 10, the default policy, and lists the cluster's source store.
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
	cfg := Config{
		Namespace:    testNS,
		Name:         testSet,
		Capacity:     10,
		Lister:       c.store.List,
		ListerSynced: c.store.HasSynced,
		Informers:    InformersFromFactory(c.InformerFactory()),
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
	c.t.Cleanup(func() { c.stop(s) })
	// The handlers have replayed the lists, then seen every later write.
	if err := c.WaitFor(context.Background(), s.HasSynced); err != nil {
		c.t.Fatalf("informers did not sync: %v", errors.Unwrap(err))
	}
	c.mu.Lock()
	c.running = append(c.running, s)
	c.mu.Unlock()
	c.syncAll()
	return s, nil
}

// stop removes a scheduler's handlers, as when its process exits: it sees
// no event from then on.
func (c *kubeCluster) stop(s *Scheduler) {
	s.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = slices.DeleteFunc(c.running, func(r *Scheduler) bool { return r == s })
}
