package memcluster

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/state"
)

const (
	// DefaultNamespace is the namespace of the StatefulSet and its pods.
	DefaultNamespace = "vsched"
	// DefaultStatefulSetName names the StatefulSet.
	DefaultStatefulSetName = "adapter"
	// DefaultCapacity is the vreplicas a pod holds when Options.Capacity
	// is 0.
	DefaultCapacity = 10
	// DefaultSyncTimeout bounds Sync, Start and write throttling when the
	// caller's context has no earlier deadline.
	DefaultSyncTimeout = 30 * time.Second
)

// DefaultZones are the zones of a cluster built without Zones or Nodes.
var DefaultZones = []string{"zone-a", "zone-b", "zone-c"}

// Taint and label keys the cluster sets, as Kubernetes' controllers do.
const (
	TaintUnschedulable = "node.kubernetes.io/unschedulable"
	LabelZone          = state.DefaultZoneLabel
	LabelHostname      = "kubernetes.io/hostname"
	LabelApp           = "app"
	LabelPodName       = "statefulset.kubernetes.io/pod-name"
	LabelPodIndex      = "apps.kubernetes.io/pod-index"
)

// epoch is the fake clock's default start: fixed, so that runs repeat.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// NodeSpec is a node to create.
type NodeSpec struct {
	Name string
	// Zone is the node's topology.kubernetes.io/zone label; "" for none.
	Zone string
}

// Options configure a cluster. The zero value is valid: three zones with a
// node each and a StatefulSet with no replicas.
type Options struct {
	// Namespace defaults to DefaultNamespace.
	Namespace string
	// StatefulSetName defaults to DefaultStatefulSetName.
	StatefulSetName string
	// Zones builds NodesPerZone nodes in each zone, named
	// "node-<zone>-<i>". Set Zones or Nodes, not both; with neither,
	// DefaultZones is used.
	Zones []string
	// NodesPerZone defaults to 1.
	NodesPerZone int
	// NoNodes starts the cluster without any node (Zones and Nodes must
	// be empty), for a caller that adds them one by one with AddNode.
	NoNodes bool
	// Nodes lists the nodes one by one.
	Nodes []NodeSpec
	// Replicas is the StatefulSet's initial spec.replicas; its pods are
	// created bound.
	Replicas int32
	// PodNodes binds pod i to PodNodes[i] ("" leaves it unbound) whenever
	// it is created, overriding the default rule for the ordinals it
	// covers. By default pod i goes to the i-th node in zone-interleaved
	// order (the first node of each zone, then the second of each, ...),
	// as a zone topology spread constraint would place it, moving on to
	// the next node that takes new pods when that one is cordoned or
	// failed, and staying unbound when none does.
	PodNodes []string
	// Capacity is reported by Capacity() for the scheduler's
	// configuration; the cluster itself does not enforce it. Defaults to
	// DefaultCapacity.
	Capacity int32
	// DrainingAnnotation is what SetDraining sets; defaults to
	// evictor.DefaultAnnotation.
	DrainingAnnotation string
	// PodResources are the requests and limits of the StatefulSet's pod
	// template's container, and so of every pod created (what
	// statefulset.TemplateResources reads); none by default.
	PodResources corev1.ResourceRequirements
	// Clock defaults to a fake clock at a fixed instant.
	Clock *clocktesting.FakeClock
	// SyncTimeout defaults to DefaultSyncTimeout.
	SyncTimeout time.Duration
}

type nodeRec struct {
	spec     NodeSpec
	cordoned bool
	failed   bool
}

// Cluster is an in-memory cluster. Its methods are safe for concurrent use;
// writes are serialized.
type Cluster struct {
	opts    Options
	client  *fake.Clientset
	real    informers.SharedInformerFactory
	factory informers.SharedInformerFactory
	clock   *clocktesting.FakeClock
	// stop ends the informers on Shutdown, whatever context Start got:
	// the factory's Shutdown waits for them, and would wait forever on a
	// context that is never cancelled.
	stop     chan struct{}
	stopOnce sync.Once

	// mu serializes writes, so resource versions follow write order.
	mu    sync.Mutex
	rv    atomic.Uint64
	uid   atomic.Uint64
	nodes map[string]*nodeRec
	order []string // nodes in creation order
	// setMu serializes the StatefulSet's writes, the scale subresource's
	// included; it is taken after mu and never with the fake clientset's
	// lock needed (see writeSetLocked).
	setMu    sync.Mutex
	replicas int32
	gen      int64
	setUID   types.UID

	tmu sync.Mutex
	t   tracking

	usage usageState
}

// New builds the cluster's nodes, StatefulSet and pods in a fake clientset
// and prepares (without starting) a namespaced informer factory over it.
func New(ctx context.Context, opts Options) (*Cluster, error) {
	if err := defaults(&opts); err != nil {
		return nil, err
	}
	c := &Cluster{
		opts:   opts,
		stop:   make(chan struct{}),
		client: fake.NewSimpleClientset(),
		clock:  opts.Clock,
		nodes:  map[string]*nodeRec{},
		t:      newTracking(),
	}
	c.client.PrependWatchReactor("*", c.watchReactor)
	c.serveScale()
	c.real = informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithNamespace(opts.Namespace))
	c.factory = trackedFactory{c.real, c}
	// The cluster's own handlers exist before anything starts, so they
	// see every object from the first list on.
	for k, inf := range c.trackedInformers() {
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		if err != nil {
			return nil, err
		}
		c.tmu.Lock()
		c.t.own[k] = c.t.regs[reg]
		c.tmu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range opts.Nodes {
		if err := c.createNodeLocked(ctx, n); err != nil {
			return nil, err
		}
	}
	if err := c.writeStatefulSetLocked(ctx, opts.Replicas, true); err != nil {
		return nil, err
	}
	for ord := range opts.Replicas {
		if err := c.createPodLocked(ctx, ord); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func defaults(o *Options) error {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.StatefulSetName == "" {
		o.StatefulSetName = DefaultStatefulSetName
	}
	if o.Capacity == 0 {
		o.Capacity = DefaultCapacity
	}
	if o.DrainingAnnotation == "" {
		o.DrainingAnnotation = evictor.DefaultAnnotation
	}
	if o.Clock == nil {
		o.Clock = clocktesting.NewFakeClock(epoch)
	}
	if o.SyncTimeout == 0 {
		o.SyncTimeout = DefaultSyncTimeout
	}
	switch {
	case o.Capacity < 0:
		return fmt.Errorf("memcluster: Capacity must not be negative, got %d", o.Capacity)
	case o.Replicas < 0:
		return fmt.Errorf("memcluster: Replicas must not be negative, got %d", o.Replicas)
	case o.NodesPerZone < 0:
		return fmt.Errorf("memcluster: NodesPerZone must not be negative, got %d", o.NodesPerZone)
	case o.SyncTimeout < 0:
		return fmt.Errorf("memcluster: SyncTimeout must not be negative, got %v", o.SyncTimeout)
	case len(o.Zones) > 0 && len(o.Nodes) > 0:
		return fmt.Errorf("memcluster: set Zones or Nodes, not both")
	case o.NoNodes && (len(o.Zones) > 0 || len(o.Nodes) > 0 || o.NodesPerZone > 0):
		return fmt.Errorf("memcluster: NoNodes with Zones, Nodes or NodesPerZone set")
	}
	if len(o.Nodes) == 0 && !o.NoNodes {
		zones := o.Zones
		if len(zones) == 0 {
			zones = DefaultZones
		}
		per := max(o.NodesPerZone, 1)
		for _, z := range zones {
			for i := range per {
				o.Nodes = append(o.Nodes, NodeSpec{Name: fmt.Sprintf("node-%s-%d", z, i), Zone: z})
			}
		}
	}
	o.Nodes = append([]NodeSpec(nil), o.Nodes...)
	seen := map[string]bool{}
	for i, n := range o.Nodes {
		if n.Name == "" {
			return fmt.Errorf("memcluster: Nodes[%d] has no name", i)
		}
		if seen[n.Name] {
			return fmt.Errorf("memcluster: node %q listed twice", n.Name)
		}
		seen[n.Name] = true
	}
	for i, n := range o.PodNodes {
		if n != "" && !seen[n] {
			return fmt.Errorf("memcluster: PodNodes[%d] names unknown node %q", i, n)
		}
	}
	o.PodNodes = append([]string(nil), o.PodNodes...)
	return nil
}

func (c *Cluster) trackedInformers() [numKinds]cache.SharedIndexInformer {
	return [numKinds]cache.SharedIndexInformer{
		KindPod:         c.factory.Core().V1().Pods().Informer(),
		KindNode:        c.factory.Core().V1().Nodes().Informer(),
		KindStatefulSet: c.factory.Apps().V1().StatefulSets().Informer(),
	}
}

// watchReactor opens the tracker's watch itself, rather than letting the
// default reactor do it, so the cluster knows the moment events start
// flowing: the fake drops every event sent before the watch exists.
func (c *Cluster) watchReactor(action k8stesting.Action) (bool, watch.Interface, error) {
	var opts metav1.ListOptions
	if wa, ok := action.(k8stesting.WatchActionImpl); ok {
		opts = wa.ListOptions
	}
	gvr := action.GetResource()
	w, err := c.client.Tracker().Watch(gvr, action.GetNamespace(), opts)
	if err != nil {
		return true, nil, err
	}
	k, ok := kindOf(gvr.Resource)
	if !ok {
		return true, w, nil
	}
	c.tmu.Lock()
	c.t.watches[k]++
	c.broadcastLocked()
	c.tmu.Unlock()
	return true, &countedWatch{Interface: newRelay(c, k, w), c: c, k: k}, nil
}

// Client is the fake clientset holding the cluster.
func (c *Cluster) Client() *fake.Clientset { return c.client }

// InformerFactory is the factory to hand to the scheduler (or anything
// else watching the cluster). Handlers registered on its pod, node and
// StatefulSet informers take part in Sync.
func (c *Cluster) InformerFactory() informers.SharedInformerFactory { return c.factory }

// Clock is the cluster's fake clock; node conditions and taints are stamped
// with it. Give it to the code under test to control reservation TTLs.
func (c *Cluster) Clock() *clocktesting.FakeClock { return c.clock }

// Namespace is the StatefulSet's namespace.
func (c *Cluster) Namespace() string { return c.opts.Namespace }

// StatefulSetName is the StatefulSet's name.
func (c *Cluster) StatefulSetName() string { return c.opts.StatefulSetName }

// StatefulSetKey is the StatefulSet's namespace and name.
func (c *Cluster) StatefulSetKey() types.NamespacedName {
	return types.NamespacedName{Namespace: c.opts.Namespace, Name: c.opts.StatefulSetName}
}

// Capacity is the vreplicas per pod the cluster was built for.
func (c *Cluster) Capacity() int32 { return c.opts.Capacity }

// DrainingAnnotation is the annotation SetDraining sets.
func (c *Cluster) DrainingAnnotation() string { return c.opts.DrainingAnnotation }

// PodName is the name of the pod with the ordinal.
func (c *Cluster) PodName(ord int32) string { return vsched.PodName(c.opts.StatefulSetName, ord) }

// Replicas is the size the pods were last made to follow (New, ScaleTo,
// Settle). A write through the scale subresource changes spec.replicas
// (read it with StatefulSet) but not Replicas until Settle, as the
// StatefulSet controller acts after the write.
func (c *Cluster) Replicas() int32 {
	c.setMu.Lock()
	defer c.setMu.Unlock()
	return c.replicas
}

// Nodes lists the nodes that exist, in creation order.
func (c *Cluster) Nodes() []NodeSpec {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]NodeSpec, 0, len(c.order))
	for _, n := range c.order {
		out = append(out, c.nodes[n].spec)
	}
	return out
}

// Zones lists the zones of existing nodes, in order of first appearance.
func (c *Cluster) Zones() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, n := range c.order {
		if z := c.nodes[n].spec.Zone; z != "" && !seen[z] {
			seen[z] = true
			out = append(out, z)
		}
	}
	return out
}

// NodesInZone lists the nodes of a zone, in creation order.
func (c *Cluster) NodesInZone(zone string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodesInZoneLocked(zone)
}

func (c *Cluster) nodesInZoneLocked(zone string) []string {
	var out []string
	for _, n := range c.order {
		if c.nodes[n].spec.Zone == zone {
			out = append(out, n)
		}
	}
	return out
}

// Pod reads the pod with the ordinal from the clientset.
func (c *Cluster) Pod(ord int32) (*corev1.Pod, error) {
	return c.client.CoreV1().Pods(c.opts.Namespace).Get(context.Background(), c.PodName(ord), metav1.GetOptions{})
}

// Node reads a node from the clientset.
func (c *Cluster) Node(name string) (*corev1.Node, error) {
	return c.client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
}

// StatefulSet reads the StatefulSet from the clientset.
func (c *Cluster) StatefulSet() (*appsv1.StatefulSet, error) {
	return c.client.AppsV1().StatefulSets(c.opts.Namespace).Get(context.Background(), c.opts.StatefulSetName, metav1.GetOptions{})
}

// PodOrdinals lists, ascending, the ordinals of the StatefulSet's pods that
// exist.
func (c *Cluster) PodOrdinals() ([]int32, error) {
	list, err := c.client.CoreV1().Pods(c.opts.Namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []int32
	for i := range list.Items {
		if ord, ok := c.ordinalOf(list.Items[i].Name); ok {
			out = append(out, ord)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

func (c *Cluster) ordinalOf(name string) (int32, bool) {
	return vsched.OrdinalOf(c.opts.StatefulSetName, name)
}

// Start starts the informers and returns once they have listed the cluster,
// are watching it, and every handler has seen the initial objects. Writes
// made before Start returns may be lost to a watch that is not open yet,
// as with any fake clientset, so mutate only after it.
func (c *Cluster) Start(ctx context.Context) error {
	done := ctx.Done() // ctx is reassigned below; the goroutine must not read it
	go func() {
		select {
		case <-done:
			c.stopInformers()
		case <-c.stop:
		}
	}()
	c.real.Start(c.stop)
	if err := c.WaitForCacheSync(ctx); err != nil {
		return err
	}
	ctx, cancel := c.deadline(ctx)
	defer cancel()
	if err := c.wait(ctx, func() bool {
		for k := range numKinds {
			if c.t.watches[k] == 0 {
				return false
			}
		}
		return true
	}); err != nil {
		return err
	}
	return c.Sync(ctx)
}

// WaitForCacheSync waits until every started informer of the factory has
// synced, and fails when one has not by the time ctx ends.
func (c *Cluster) WaitForCacheSync(ctx context.Context) error {
	ctx, cancel := c.deadline(ctx)
	defer cancel()
	for typ, ok := range c.real.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("memcluster: informer for %v did not sync: %w", typ, ctx.Err())
		}
	}
	return nil
}

// Sync waits until every handler registered on the factory's pod, node and
// StatefulSet informers (and so their listers) has processed the latest
// write of every object the cluster wrote (the scale subresource's
// included), and until every registration's HasSynced holds (a handler
// added late has seen the initial list). It does not wait for the events
// of a kind that is held (Hold): only for the others, so it never blocks
// on a hold. It fails, naming what is missing, when ctx ends or
// SyncTimeout passes first.
func (c *Cluster) Sync(ctx context.Context) error {
	ctx, cancel := c.deadline(ctx)
	defer cancel()
	if err := c.wait(ctx, c.syncedLocked); err != nil {
		return err
	}
	return c.waitHandlersSynced(ctx)
}

// WaitFor polls cond until it holds, for conditions on components the
// cluster does not track (a scheduler's requeue, a metric). It fails when
// ctx ends or SyncTimeout passes first.
func (c *Cluster) WaitFor(ctx context.Context, cond func() bool) error {
	ctx, cancel := c.deadline(ctx)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, time.Millisecond, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		return fmt.Errorf("memcluster: condition not met: %w", err)
	}
	return nil
}

// Shutdown stops the informers and waits for them to end.
func (c *Cluster) Shutdown() {
	c.stopInformers()
	c.real.Shutdown()
}

func (c *Cluster) stopInformers() { c.stopOnce.Do(func() { close(c.stop) }) }

func (c *Cluster) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.opts.SyncTimeout)
}

// nextRV returns a fresh resource version. Writes of one object are
// serialized (by mu, or setMu for the StatefulSet), so an object's versions
// follow its write order.
func (c *Cluster) nextRV() string {
	return strconv.FormatUint(c.rv.Add(1), 10)
}

func (c *Cluster) nextUID(prefix string) types.UID {
	return types.UID(fmt.Sprintf("%s-%08d", prefix, c.uid.Add(1)))
}
