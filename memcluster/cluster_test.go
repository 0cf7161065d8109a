package memcluster_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/state"
)

func newCluster(t *testing.T, opts memcluster.Options) *memcluster.Cluster {
	t.Helper()
	c, err := memcluster.New(context.Background(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// started builds a cluster and starts its informers for the test's life.
func started(t *testing.T, opts memcluster.Options) (*memcluster.Cluster, context.Context) {
	t.Helper()
	c := newCluster(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Shutdown() })
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return c, ctx
}

func podNodes(t *testing.T, c *memcluster.Cluster) map[int32]string {
	t.Helper()
	ords, err := c.PodOrdinals()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]string{}
	for _, o := range ords {
		p, err := c.Pod(o)
		if err != nil {
			t.Fatal(err)
		}
		out[o] = p.Spec.NodeName
	}
	return out
}

func TestNewValidation(t *testing.T) {
	tests := []struct {
		name string
		opts memcluster.Options
		want string
	}{
		{"zones and nodes", memcluster.Options{Zones: []string{"a"}, Nodes: []memcluster.NodeSpec{{Name: "n"}}}, "not both"},
		{"negative replicas", memcluster.Options{Replicas: -1}, "Replicas"},
		{"negative capacity", memcluster.Options{Capacity: -1}, "Capacity"},
		{"negative nodes per zone", memcluster.Options{NodesPerZone: -1}, "NodesPerZone"},
		{"negative sync timeout", memcluster.Options{SyncTimeout: -time.Second}, "SyncTimeout"},
		{"unnamed node", memcluster.Options{Nodes: []memcluster.NodeSpec{{Zone: "a"}}}, "no name"},
		{"duplicate node", memcluster.Options{Nodes: []memcluster.NodeSpec{{Name: "n"}, {Name: "n"}}}, "twice"},
		{"unknown pod node", memcluster.Options{PodNodes: []string{"nope"}}, "unknown node"},
		{"no nodes and zones", memcluster.Options{NoNodes: true, Zones: []string{"a"}}, "NoNodes"},
		{"no nodes and nodes per zone", memcluster.Options{NoNodes: true, NodesPerZone: 2}, "NoNodes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := memcluster.New(context.Background(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New() error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c := newCluster(t, memcluster.Options{})
	got := struct {
		Namespace, Name, Annotation string
		Capacity, Replicas          int32
		Nodes                       []memcluster.NodeSpec
		Zones                       []string
	}{c.Namespace(), c.StatefulSetName(), c.DrainingAnnotation(), c.Capacity(), c.Replicas(), c.Nodes(), c.Zones()}
	want := got
	want.Namespace, want.Name, want.Annotation = "vsched", "adapter", evictor.DefaultAnnotation
	want.Capacity, want.Replicas = memcluster.DefaultCapacity, 0
	want.Nodes = []memcluster.NodeSpec{{Name: "node-zone-a-0", Zone: "zone-a"}, {Name: "node-zone-b-0", Zone: "zone-b"}, {Name: "node-zone-c-0", Zone: "zone-c"}}
	want.Zones = memcluster.DefaultZones
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("defaults (-want +got):\n%s", d)
	}
	if k := c.StatefulSetKey(); k.String() != "vsched/adapter" {
		t.Errorf("StatefulSetKey() = %v", k)
	}
	set, err := c.StatefulSet()
	if err != nil || *set.Spec.Replicas != 0 {
		t.Fatalf("StatefulSet() = %v, %v; want one with 0 replicas", set, err)
	}
	if !c.Clock().Now().Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("clock starts at %v", c.Clock().Now())
	}
}

func TestPodsRoundRobinAcrossZones(t *testing.T) {
	tests := []struct {
		name string
		opts memcluster.Options
		want map[int32]string
	}{{
		name: "two nodes per zone",
		opts: memcluster.Options{Zones: []string{"a", "b", "c"}, NodesPerZone: 2, Replicas: 7},
		want: map[int32]string{0: "node-a-0", 1: "node-b-0", 2: "node-c-0", 3: "node-a-1", 4: "node-b-1", 5: "node-c-1", 6: "node-a-0"},
	}, {
		name: "uneven zones interleave",
		opts: memcluster.Options{Nodes: []memcluster.NodeSpec{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}}, Replicas: 5},
		want: map[int32]string{0: "a1", 1: "b1", 2: "a2", 3: "a3", 4: "a1"},
	}, {
		name: "nodes without zone form their own group",
		opts: memcluster.Options{Nodes: []memcluster.NodeSpec{{"x", ""}, {"y", ""}, {"a1", "a"}}, Replicas: 3},
		want: map[int32]string{0: "x", 1: "a1", 2: "y"},
	}, {
		name: "explicit assignment, then the rule",
		opts: memcluster.Options{Zones: []string{"a", "b"}, PodNodes: []string{"node-b-0", "", "node-b-0"}, Replicas: 4},
		want: map[int32]string{0: "node-b-0", 1: "", 2: "node-b-0", 3: "node-b-0"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, tc.opts)
			if d := cmp.Diff(tc.want, podNodes(t, c)); d != "" {
				t.Errorf("pod -> node (-want +got):\n%s", d)
			}
		})
	}
}

func TestObjectsLookReal(t *testing.T) {
	c := newCluster(t, memcluster.Options{Zones: []string{"a"}, Replicas: 1, PodNodes: []string{"", ""}})
	node, err := c.Node("node-a-0")
	if err != nil {
		t.Fatal(err)
	}
	if node.Labels[memcluster.LabelZone] != "a" || readyStatus(node) != corev1.ConditionTrue || node.ResourceVersion == "" {
		t.Errorf("node = %+v; want zone label a, Ready, a resource version", node)
	}
	if ok, _, why := state.NodeAvailability(node); !ok {
		t.Errorf("new node not schedulable: %s", why)
	}
	pod, err := c.Pod(0)
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.NodeName != "" || pod.Status.Phase != corev1.PodPending {
		t.Errorf("unbound pod: node %q phase %q; want none, Pending", pod.Spec.NodeName, pod.Status.Phase)
	}
	set, err := c.StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	sel, err := labels.ValidatedSelectorFromSet(set.Spec.Selector.MatchLabels)
	if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
		t.Errorf("StatefulSet selector %v does not match pod labels %v", set.Spec.Selector, pod.Labels)
	}
	if len(pod.OwnerReferences) != 1 || pod.OwnerReferences[0].UID != set.UID {
		t.Errorf("pod owner references %v; want the StatefulSet %s", pod.OwnerReferences, set.UID)
	}
}

func TestScaleTo(t *testing.T) {
	c, ctx := started(t, memcluster.Options{Zones: []string{"a", "b"}, Replicas: 2})
	pods := c.InformerFactory().Core().V1().Pods().Lister()
	sets := c.InformerFactory().Apps().V1().StatefulSets().Lister()
	seen := func() (int32, []string) {
		set, err := sets.StatefulSets(c.Namespace()).Get(c.StatefulSetName())
		if err != nil {
			t.Fatal(err)
		}
		list, err := pods.List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list {
			names = append(names, p.Name+"@"+p.Spec.NodeName)
		}
		sort.Strings(names)
		return *set.Spec.Replicas, names
	}
	steps := []struct {
		n         int32
		wantPods  []string
		wantError bool
	}{
		{n: 4, wantPods: []string{"adapter-0@node-a-0", "adapter-1@node-b-0", "adapter-2@node-a-0", "adapter-3@node-b-0"}},
		{n: 1, wantPods: []string{"adapter-0@node-a-0"}},
		{n: 0},
		{n: 3, wantPods: []string{"adapter-0@node-a-0", "adapter-1@node-b-0", "adapter-2@node-a-0"}},
		{n: -1, wantError: true, wantPods: []string{"adapter-0@node-a-0", "adapter-1@node-b-0", "adapter-2@node-a-0"}},
	}
	want := int32(2)
	for _, s := range steps {
		err := c.ScaleTo(s.n)
		if (err != nil) != s.wantError {
			t.Fatalf("ScaleTo(%d) error = %v", s.n, err)
		}
		if !s.wantError {
			want = s.n
		}
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		gotReplicas, gotPods := seen()
		if gotReplicas != want || c.Replicas() != want {
			t.Errorf("after ScaleTo(%d): informer replicas %d, Replicas() %d; want %d", s.n, gotReplicas, c.Replicas(), want)
		}
		if d := cmp.Diff(s.wantPods, gotPods); d != "" {
			t.Errorf("after ScaleTo(%d), informer pods (-want +got):\n%s", s.n, d)
		}
	}
}

func taintKeys(n *corev1.Node) []string {
	var out []string
	for _, t := range n.Spec.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return out
}

func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func TestNodeConditionsAndTaints(t *testing.T) {
	type view struct {
		Ready         corev1.ConditionStatus
		Unschedulable bool
		Taints        []string
		PodReady      bool
		Schedulable   bool
		Unavailable   bool
	}
	c := newCluster(t, memcluster.Options{Zones: []string{"a"}, Replicas: 1})
	const node = "node-a-0"
	look := func() view {
		n, err := c.Node(node)
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Pod(0)
		if err != nil {
			t.Fatal(err)
		}
		if p.Spec.NodeName != node {
			t.Fatalf("pod moved to %q", p.Spec.NodeName)
		}
		sched, unavail, _ := state.NodeAvailability(n)
		return view{readyStatus(n), n.Spec.Unschedulable, taintKeys(n), podReady(p), sched, unavail}
	}
	steps := []struct {
		name string
		do   func() error
		want view
	}{
		{"fail", func() error { return c.FailNode(node) }, view{
			Ready:       corev1.ConditionUnknown,
			Taints:      []string{"node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"},
			Unavailable: true,
		}},
		{"fail again is idempotent", func() error { return c.FailNode(node) }, view{
			Ready:       corev1.ConditionUnknown,
			Taints:      []string{"node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"},
			Unavailable: true,
		}},
		{"recover", func() error { return c.RecoverNode(node) }, view{Ready: corev1.ConditionTrue, PodReady: true, Schedulable: true}},
		{"cordon", func() error { return c.Cordon(node) }, view{
			Ready: corev1.ConditionTrue, Unschedulable: true, Taints: []string{"node.kubernetes.io/unschedulable:NoSchedule"}, PodReady: true,
		}},
		{"fail while cordoned", func() error { return c.FailNode(node) }, view{
			Ready: corev1.ConditionUnknown, Unschedulable: true,
			Taints:      []string{"node.kubernetes.io/unschedulable:NoSchedule", "node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"},
			Unavailable: true,
		}},
		{"recover keeps the cordon", func() error { return c.RecoverNode(node) }, view{
			Ready: corev1.ConditionTrue, Unschedulable: true, Taints: []string{"node.kubernetes.io/unschedulable:NoSchedule"}, PodReady: true,
		}},
		{"uncordon", func() error { return c.Uncordon(node) }, view{Ready: corev1.ConditionTrue, PodReady: true, Schedulable: true}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if d := cmp.Diff(s.want, look()); d != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, d)
		}
	}
	for _, err := range []error{c.FailNode("nope"), c.RecoverNode("nope"), c.Cordon("nope"), c.Uncordon("nope"), c.FailZone("nope"), c.BindPod(0, "nope"), c.DeleteNode("nope")} {
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Errorf("mutating an unknown node: error %v, want one naming it", err)
		}
	}
}

func TestFailZoneAndBinding(t *testing.T) {
	c := newCluster(t, memcluster.Options{Zones: []string{"a", "b"}, Replicas: 2})
	if err := c.FailZone("a"); err != nil {
		t.Fatal(err)
	}
	// New pods avoid the failed zone, as kube-scheduler would.
	if err := c.ScaleTo(4); err != nil {
		t.Fatal(err)
	}
	want := map[int32]string{0: "node-a-0", 1: "node-b-0", 2: "node-b-0", 3: "node-b-0"}
	if d := cmp.Diff(want, podNodes(t, c)); d != "" {
		t.Errorf("after FailZone(a) and ScaleTo(4) (-want +got):\n%s", d)
	}
	p0, _ := c.Pod(0)
	if podReady(p0) {
		t.Error("pod on failed node still Ready")
	}
	// With no node taking pods, new ones stay pending.
	if err := c.Cordon("node-b-0"); err != nil {
		t.Fatal(err)
	}
	if err := c.ScaleTo(5); err != nil {
		t.Fatal(err)
	}
	if err := c.UnbindPod(1); err != nil {
		t.Fatal(err)
	}
	want = map[int32]string{0: "node-a-0", 1: "", 2: "node-b-0", 3: "node-b-0", 4: ""}
	if d := cmp.Diff(want, podNodes(t, c)); d != "" {
		t.Errorf("with every node unavailable (-want +got):\n%s", d)
	}
	if err := c.BindPending(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, podNodes(t, c)); d != "" {
		t.Errorf("BindPending with no node available changed pods (-want +got):\n%s", d)
	}
	if err := c.RecoverZone("a"); err != nil {
		t.Fatal(err)
	}
	if err := c.BindPending(); err != nil {
		t.Fatal(err)
	}
	want = map[int32]string{0: "node-a-0", 1: "node-a-0", 2: "node-b-0", 3: "node-b-0", 4: "node-a-0"}
	if d := cmp.Diff(want, podNodes(t, c)); d != "" {
		t.Errorf("after RecoverZone(a) and BindPending (-want +got):\n%s", d)
	}
	if err := c.BindPod(4, "node-b-0"); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Pod(4); p.Spec.NodeName != "node-b-0" || !podReady(p) {
		t.Errorf("BindPod: pod on %q ready=%v", p.Spec.NodeName, podReady(p))
	}
}

func TestPodMutators(t *testing.T) {
	c := newCluster(t, memcluster.Options{Replicas: 3})
	if err := c.SetDraining(1, true); err != nil {
		t.Fatal(err)
	}
	if err := c.AnnotatePod(2, "k", "v"); err != nil {
		t.Fatal(err)
	}
	p1, _ := c.Pod(1)
	p2, _ := c.Pod(2)
	if d := cmp.Diff(map[string]string{evictor.DefaultAnnotation: "true"}, p1.Annotations); d != "" {
		t.Errorf("SetDraining(1, true) annotations (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"k": "v"}, p2.Annotations); d != "" {
		t.Errorf("AnnotatePod annotations (-want +got):\n%s", d)
	}
	if err := c.SetDraining(1, false); err != nil {
		t.Fatal(err)
	}
	if err := c.RemovePodAnnotation(2, "k"); err != nil {
		t.Fatal(err)
	}
	p1, _ = c.Pod(1)
	p2, _ = c.Pod(2)
	if len(p1.Annotations)+len(p2.Annotations) != 0 {
		t.Errorf("annotations left: %v %v", p1.Annotations, p2.Annotations)
	}
	if err := c.DeletePod(1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pod(1); !apierrors.IsNotFound(err) {
		t.Errorf("Pod(1) after DeletePod: %v; want NotFound", err)
	}
	if err := c.DeletePod(1); !apierrors.IsNotFound(err) {
		t.Errorf("second DeletePod: %v; want NotFound", err)
	}
	if err := c.AnnotatePod(1, "k", "v"); !apierrors.IsNotFound(err) {
		t.Errorf("AnnotatePod on a deleted pod: %v; want NotFound", err)
	}
	if err := c.RecreatePod(1); err != nil {
		t.Fatal(err)
	}
	if err := c.RecreatePod(1); !apierrors.IsAlreadyExists(err) {
		t.Errorf("RecreatePod on an existing pod: %v; want AlreadyExists", err)
	}
	if err := c.RecreatePod(-1); err == nil {
		t.Error("RecreatePod(-1) succeeded")
	}
	if p, _ := c.Pod(1); p.Spec.NodeName != "node-zone-b-0" {
		t.Errorf("recreated pod on %q, want node-zone-b-0 by the rule", p.Spec.NodeName)
	}
}

func TestAddAndDeleteNode(t *testing.T) {
	c, ctx := started(t, memcluster.Options{Zones: []string{"a"}})
	if err := c.AddNode(memcluster.NodeSpec{Name: "extra", Zone: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := c.AddNode(memcluster.NodeSpec{Name: "extra"}); err == nil {
		t.Error("adding a node twice succeeded")
	}
	if err := c.AddNode(memcluster.NodeSpec{}); err == nil {
		t.Error("adding a nameless node succeeded")
	}
	if d := cmp.Diff([]string{"a", "b"}, c.Zones()); d != "" {
		t.Errorf("Zones() (-want +got):\n%s", d)
	}
	if err := c.ScaleTo(2); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[int32]string{0: "node-a-0", 1: "extra"}, podNodes(t, c)); d != "" {
		t.Errorf("pods after AddNode (-want +got):\n%s", d)
	}
	if err := c.DeleteNode("extra"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InformerFactory().Core().V1().Nodes().Lister().Get("extra"); !apierrors.IsNotFound(err) {
		t.Errorf("informer still has the deleted node: %v", err)
	}
	if d := cmp.Diff([]string{"node-a-0"}, c.NodesInZone("a")); d != "" {
		t.Errorf("NodesInZone(a) (-want +got):\n%s", d)
	}
	if len(c.NodesInZone("b")) != 0 {
		t.Errorf("zone b still has nodes")
	}
	// The pod stays bound to the name until pod GC.
	if p, _ := c.Pod(1); p.Spec.NodeName != "extra" {
		t.Errorf("pod 1 on %q after its node was deleted", p.Spec.NodeName)
	}
}

// recorder is a deliberately slow handler: Sync must wait for it.
type recorder struct {
	mu   sync.Mutex
	last map[string]string // key -> resourceVersion, "" once deleted
}

func (r *recorder) record(obj any, deleted bool) {
	time.Sleep(100 * time.Microsecond)
	key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	rv := ""
	if !deleted {
		switch o := obj.(type) {
		case *corev1.Pod:
			rv = o.ResourceVersion
		case *corev1.Node:
			rv = o.ResourceVersion
		case *appsv1.StatefulSet:
			rv = o.ResourceVersion
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if deleted {
		delete(r.last, key)
		return
	}
	r.last[key] = rv
}

func (r *recorder) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.record(obj, false) },
		UpdateFunc: func(_, obj any) { r.record(obj, false) },
		DeleteFunc: func(obj any) { r.record(obj, true) },
	}
}

func (r *recorder) snapshot() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.last))
	for k, v := range r.last {
		out[k] = v
	}
	return out
}

// truth reads what the clientset holds, the state every handler must reach.
func truth(t *testing.T, c *memcluster.Cluster) (pods, nodes map[string]string) {
	t.Helper()
	pods, nodes = map[string]string{}, map[string]string{}
	ctx := context.Background()
	pl, err := c.Client().CoreV1().Pods(c.Namespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pl.Items {
		pods[p.Namespace+"/"+p.Name] = p.ResourceVersion
	}
	nl, err := c.Client().CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nl.Items {
		nodes[n.Name] = n.ResourceVersion
	}
	return pods, nodes
}

func TestSyncWaitsForEveryHandler(t *testing.T) {
	c := newCluster(t, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 3})
	f := c.InformerFactory()
	early := [2]*recorder{{last: map[string]string{}}, {last: map[string]string{}}}
	if _, err := f.Core().V1().Pods().Informer().AddEventHandler(early[0].handler()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Core().V1().Nodes().Informer().AddEventHandlerWithResyncPeriod(early[1].handler(), 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Shutdown() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// A burst larger than the fake watch's buffer, mixed kinds, deletes.
	ops := []func() error{
		func() error { return c.ScaleTo(250) },
		func() error { return c.FailZone("a") },
		func() error { return c.SetDraining(7, true) },
		func() error { return c.ScaleTo(120) },
		func() error { return c.DeletePod(3) },
		func() error { return c.RecoverZone("a") },
		func() error { return c.Cordon("node-b-0") },
	}
	for i, op := range ops {
		if err := op(); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
	}
	// A handler added late gets the current objects; Sync waits for it too.
	late := &recorder{last: map[string]string{}}
	if _, err := f.Core().V1().Pods().Informer().AddEventHandlerWithOptions(late.handler(), cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	pods, nodes := truth(t, c)
	if len(pods) != 119 {
		t.Fatalf("%d pods in the clientset, want 119", len(pods))
	}
	if d := cmp.Diff(pods, early[0].snapshot()); d != "" {
		t.Errorf("early pod handler after Sync (-clientset +handler):\n%s", d)
	}
	if d := cmp.Diff(nodes, early[1].snapshot()); d != "" {
		t.Errorf("node handler after Sync (-clientset +handler):\n%s", d)
	}
	if d := cmp.Diff(pods, late.snapshot()); d != "" {
		t.Errorf("late pod handler after Sync (-clientset +handler):\n%s", d)
	}
}

func TestRemovedHandlerDoesNotBlockSync(t *testing.T) {
	c := newCluster(t, memcluster.Options{Replicas: 1})
	inf := c.InformerFactory().Core().V1().Pods().Informer()
	block := make(chan struct{})
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		// Blocks on every event until the test ends: were it still
		// tracked, Sync could never finish.
		UpdateFunc: func(_, _ any) { <-block },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { close(block); cancel(); c.Shutdown() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	if err := c.AnnotatePod(0, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSyncBeforeStartFails(t *testing.T) {
	c := newCluster(t, memcluster.Options{Replicas: 1, SyncTimeout: 50 * time.Millisecond})
	err := c.Sync(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no watch is running") || !strings.Contains(err.Error(), "vsched/adapter-0") {
		t.Fatalf("Sync before Start: %v; want an error naming the missing watch and object", err)
	}
	if err := c.WaitFor(context.Background(), func() bool { return false }); err == nil {
		t.Fatal("WaitFor(false) succeeded")
	}
	n := 0
	c = newCluster(t, memcluster.Options{})
	if err := c.WaitFor(context.Background(), func() bool { n++; return n == 3 }); err != nil {
		t.Fatalf("WaitFor: %v", err)
	}
}

// TestDrivesState feeds a state.State from the cluster's informers, as the
// scheduler does, and checks that the state sees what the cluster does.
func TestDrivesState(t *testing.T) {
	c := newCluster(t, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 6})
	st, err := state.New(state.Options{StatefulSetName: c.StatefulSetName(), Capacity: c.Capacity()})
	if err != nil {
		t.Fatal(err)
	}
	locked := func(f func()) { st.Lock(); defer st.Unlock(); f() }
	f := c.InformerFactory()
	_, _ = f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { locked(func() { st.UpsertPod(o.(*corev1.Pod)) }) },
		UpdateFunc: func(_, o any) { locked(func() { st.UpsertPod(o.(*corev1.Pod)) }) },
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			locked(func() { st.DeletePod(o.(*corev1.Pod).Name) })
		},
	})
	_, _ = f.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { locked(func() { st.UpsertNode(o.(*corev1.Node), c.Clock().Now()) }) },
		UpdateFunc: func(_, o any) { locked(func() { st.UpsertNode(o.(*corev1.Node), c.Clock().Now()) }) },
	})
	_, _ = f.Apps().V1().StatefulSets().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { locked(func() { st.SetReplicas(*o.(*appsv1.StatefulSet).Spec.Replicas) }) },
		UpdateFunc: func(_, o any) { locked(func() { st.SetReplicas(*o.(*appsv1.StatefulSet).Spec.Replicas) }) },
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Shutdown() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	type view struct {
		Candidates []int32
		Zones      []string
		Since      time.Time
	}
	look := func() view {
		var v view
		locked(func() {
			v.Candidates = append([]int32(nil), st.Candidates()...)
			for _, z := range st.SchedulableZones() {
				v.Zones = append(v.Zones, st.ZoneName(z))
			}
			v.Since = st.NodeUnavailableSince(1)
		})
		return v
	}
	if d := cmp.Diff(view{Candidates: []int32{0, 1, 2, 3, 4, 5}, Zones: []string{"a", "b", "c"}}, look()); d != "" {
		t.Errorf("after Start (-want +got):\n%s", d)
	}
	failedAt := c.Clock().Now()
	if err := c.FailZone("b"); err != nil {
		t.Fatal(err)
	}
	// The handler stamps the failure with the clock when it runs.
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	c.Clock().Step(time.Minute)
	if err := c.SetDraining(0, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(view{Candidates: []int32{2, 3, 5}, Zones: []string{"a", "c"}, Since: failedAt}, look()); d != "" {
		t.Errorf("after FailZone(b) and draining pod 0 (-want +got):\n%s", d)
	}
	if err := c.ScaleTo(2); err != nil {
		t.Fatal(err)
	}
	if err := c.RecoverZone("b"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(view{Candidates: []int32{1}, Zones: []string{"b"}}, look()); d != "" {
		t.Errorf("after ScaleTo(2) and RecoverZone(b) (-want +got):\n%s", d)
	}
}

// Shutdown must return even when Start's context is never cancelled: the
// factory's Shutdown waits for its informers, which only stop when told.
func TestShutdownWithoutCancel(t *testing.T) {
	c, err := memcluster.New(context.Background(), memcluster.Options{Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return")
	}
}
