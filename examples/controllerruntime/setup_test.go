package controllerruntime

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	crconfig "sigs.k8s.io/controller-runtime/pkg/config"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/plugins"
)

const ns = "vsched"

// cluster is three ready nodes in three zones and the adapter
// StatefulSet's three pods, one on each.
func cluster() []client.Object {
	objs := []client.Object{&appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "adapter"},
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3)},
	}}
	for i, zone := range []string{"a", "b", "c"} {
		node := "node-" + zone
		objs = append(objs, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: node, Labels: map[string]string{"topology.kubernetes.io/zone": zone}},
			Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("adapter-%d", i)},
			Spec:       corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
	}
	return objs
}

// newManager builds a controller-runtime manager whose client is c and
// whose cache's informers list and watch c: the manager's own cache, fed by
// the fake client instead of an API server.
func newManager(t *testing.T, c client.WithWatch, scheme *runtime.Scheme) manager.Manager {
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, obj := range []runtime.Object{&corev1.Pod{}, &appsv1.StatefulSet{}, &Source{}} {
		mapper.Add(gvk(t, scheme, obj), meta.RESTScopeNamespace)
	}
	mapper.Add(gvk(t, scheme, &corev1.Node{}), meta.RESTScopeRoot)
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Scheme:         scheme,
		MapperProvider: func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return mapper, nil },
		NewClient:      func(*rest.Config, client.Options) (client.Client, error) { return c, nil },
		NewCache: func(cfg *rest.Config, o cache.Options) (cache.Cache, error) {
			o.NewInformer = func(_ toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, idx toolscache.Indexers) toolscache.SharedIndexInformer {
				return toolscache.NewSharedIndexInformer(listWatch(t, c, scheme, obj), obj, resync, idx)
			}
			return cache.New(cfg, o)
		},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             crconfig.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mgr
}

func gvk(t *testing.T, scheme *runtime.Scheme, obj runtime.Object) schema.GroupVersionKind {
	g, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// listWatch lists and watches obj's kind through the fake client.
func listWatch(t *testing.T, c client.WithWatch, scheme *runtime.Scheme, obj runtime.Object) toolscache.ListerWatcher {
	g := gvk(t, scheme, obj)
	newList := func() client.ObjectList {
		l, err := scheme.New(g.GroupVersion().WithKind(g.Kind + "List"))
		if err != nil {
			panic(err)
		}
		return l.(client.ObjectList)
	}
	return noWatchList{&toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
			l := newList()
			return l, c.List(ctx, l)
		},
		WatchFuncWithContext: func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
			return c.Watch(ctx, newList())
		},
	}}
}

// noWatchList tells client-go's reflector that the fake's watch does not
// stream the initial list (it would wait for a bookmark that never comes).
type noWatchList struct{ *toolscache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// TestSchedulesOnTheManagersCache runs the manager with the scheduler and
// the autoscaler embedded by Setup over a Source, and sees its
// placements written to its status, lowest ordinals first; the autoscaler
// reads the StatefulSet and pods from the same cache.
func TestSchedulesOnTheManagersCache(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	objs := cluster()
	// The source exists before the manager starts: the fake client's
	// watch does not resume from the list's resourceVersion, so an object
	// created between the cache's list and its watch is never delivered,
	// and the test waited a minute for a reconcile that could not come
	// (about 1 run in 12 under -race on a loaded machine).
	key := types.NamespacedName{Namespace: "sources", Name: "src"}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(append(objs, &Source{ObjectMeta: objectMeta(key), Spec: SourceSpec{VReplicas: 4}})...).WithStatusSubresource(&Source{}).Build()
	// The autoscaler writes the scale subresource, and a term's first load
	// reads the StatefulSet, through a client-go clientset: here a fake of
	// its own holding the same StatefulSet.
	kube := kubefake.NewClientset(objs[0])
	mgr := newManager(t, c, scheme)
	crlog.SetLogger(testr.NewWithOptions(t, testr.Options{Verbosity: 1}))
	// The deadline only ends a test whose source is never scheduled.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), &corev1.ConfigMap{Data: map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	autoscaling := config.DefaultAutoscalerConfig()
	autoscaling.MinReplicas = 3
	sched, err := Setup(ctx, mgr, Options{
		Namespace: ns, StatefulSet: "adapter", Capacity: 2,
		Kube: kube, Profiles: profiles, APIReader: c,
		AutoscalerConfig: func() *config.AutoscalerConfig { return autoscaling },
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	var src Source
	for len(src.Status.Placements) == 0 {
		// The controller writes once; a deadline means it never did.
		if ctx.Err() != nil {
			t.Fatal("the source was never scheduled")
		}
		time.Sleep(10 * time.Millisecond)
		if err := c.Get(ctx, key, &src); err != nil {
			t.Fatal(err)
		}
	}
	want := []vsched.Placement{
		{PodName: "adapter-0", NodeName: "node-a", ZoneName: "a", VReplicas: 2},
		{PodName: "adapter-1", NodeName: "node-b", ZoneName: "b", VReplicas: 2},
	}
	if diff := cmp.Diff(want, src.Status.Placements); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
	if cond := meta.FindStatusCondition(src.Status.Conditions, "Scheduled"); cond == nil || cond.Reason != "AllPlaced" {
		t.Errorf("Scheduled condition = %+v; want AllPlaced", cond)
	}
	dec, err := sched.Autoscaler.Reconcile(ctx)
	if err != nil || dec.Current != 3 || dec.Action != autoscaler.ActionNone {
		t.Errorf("autoscaler cycle = %+v, %v; want 3 replicas seen through the cache and no action", dec, err)
	}
}
