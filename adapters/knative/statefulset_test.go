package knative_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	duckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"
	logtesting "knative.dev/pkg/logging/testing"

	knative "github.com/vsched/vsched/adapters/knative"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// eviction is one Evictor call, as eventing-kafka-broker's evictor sees it.
type eviction struct {
	Pod, Source string
	From        duckv1alpha1.Placement
}

type evictions struct {
	mu  sync.Mutex
	got []eviction
}

func (e *evictions) evict(pod *corev1.Pod, v scheduler.VPod, from *duckv1alpha1.Placement) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, eviction{Pod: pod.Namespace + "/" + pod.Name, Source: v.GetKey().String(), From: *from})
	return nil
}

// packing is config-scheduler that fills the lowest ordinals first, so that
// compaction has a pod to empty.
var packing = map[string]string{
	"predicates": `[{"Name": "PodFitsResources"}]`,
	"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
}

// newKafkaScheduler builds the scheduler as the consumergroup controller
// would through NewStatefulSet, on a memcluster of one zone and 4 pods of
// capacity 10 whose pods are marked the Knative way.
func newKafkaScheduler(t *testing.T, srcs *sources, ev *evictions, as config.AutoscalerSource, profiles map[string]string) (*knative.StatefulSetScheduler, *memcluster.Cluster, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(logtesting.TestContextWithLogger(t))
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a"}, Replicas: 4, Capacity: 10, DrainingAnnotation: scheduler.PodAnnotationKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	var evictor scheduler.Evictor
	if ev != nil {
		evictor = ev.evict
	}
	var prof config.ProfilesSource
	if profiles != nil {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config-scheduler"}, Data: profiles}
		if prof, err = config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), cm, nil); err != nil {
			t.Fatal(err)
		}
	}
	s, err := knative.NewStatefulSet(ctx, knative.StatefulSetConfig{
		StatefulSetNamespace: c.Namespace(), StatefulSetName: c.StatefulSetName(), PodCapacity: c.Capacity(),
		Evictor: evictor, VPodLister: srcs.list,
		PodLister:    c.InformerFactory().Core().V1().Pods().Lister().Pods(c.Namespace()),
		ListerSynced: func() bool { return true }, Informers: statefulset.InformersFromFactory(c.InformerFactory()),
		Client: c.Client(), Profiles: prof, Autoscaler: as, AlwaysLeader: true, Clock: c.Clock(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return s, c, ctx
}

// run schedules a source and writes its status, then lets the scheduler see
// the write, as the informer would.
func run(t *testing.T, ctx context.Context, srcs *sources, s *knative.StatefulSetScheduler, name string, vreplicas int32) []duckv1alpha1.Placement {
	t.Helper()
	srcs.write(key(name), func(v *source) { v.vreplicas = vreplicas })
	ps, err := srcs.reconcile(ctx, s, key(name))
	if err != nil {
		t.Fatalf("Schedule(%s): %v", name, err)
	}
	s.Observe(srcs.get(key(name)))
	return ps
}

func TestStatefulSetHonoursUnschedulableAnnotation(t *testing.T) {
	srcs := newSources()
	s, c, ctx := newKafkaScheduler(t, srcs, &evictions{}, nil, nil)
	if err := c.AnnotatePod(1, scheduler.PodAnnotationKey, "true"); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(ctx, func() bool { return s.StatefulSet.Pods()[1].Draining }); err != nil {
		t.Fatal(err)
	}
	got := run(t, ctx, srcs, s, "cg", 30)
	want := []duckv1alpha1.Placement{pl("adapter-0", 10), pl("adapter-2", 10), pl("adapter-3", 10)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placements with adapter-1 unschedulable (-want +got):\n%s", diff)
	}
}

func TestStatefulSetConfigErrors(t *testing.T) {
	srcs := newSources()
	live := config.AutoscalerSource(config.DefaultAutoscalerConfig)
	for _, tc := range []struct {
		name string
		cfg  knative.StatefulSetConfig
		want string
	}{
		{"no lister", knative.StatefulSetConfig{}, "VPodLister is required"},
		{"min above max", knative.StatefulSetConfig{VPodLister: srcs.list, MinReplicas: 1000}, "min-replicas"},
		{"negative period", knative.StatefulSetConfig{VPodLister: srcs.list, RefreshPeriod: -time.Second}, "refresh-period"},
		{"both", knative.StatefulSetConfig{VPodLister: srcs.list, Autoscaler: live, MinReplicas: 2}, "set min-replicas and refresh-period in config-autoscaler"},
	} {
		_, err := knative.NewStatefulSet(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestStatefulSetEvictorOnCompaction: 30 vreplicas on 4 pods fit on 3, the
// autoscaler drains pod 3, and the Evictor is called for the one consumer
// group placed there, with that pod and that placement, as Knative's
// autoscaler called it.
func TestStatefulSetEvictorOnCompaction(t *testing.T) {
	srcs, ev := newSources(), &evictions{}
	cfg := config.DefaultAutoscalerConfig()
	cfg.StabilizationWindow, cfg.ScaleDownCooldown = 0, 0
	s, c, ctx := newKafkaScheduler(t, srcs, ev, func() *config.AutoscalerConfig { return cfg }, packing)
	for i := 0; i < 4; i++ {
		run(t, ctx, srcs, s, fmt.Sprintf("s%d", i), 10)
	}
	run(t, ctx, srcs, s, "s0", 5)
	run(t, ctx, srcs, s, "s1", 5)
	if diff := cmp.Diff([]duckv1alpha1.Placement{pl("adapter-3", 10)}, srcs.get(key("s3")).placements); diff != "" {
		t.Fatalf("setup: s3 (-want +got):\n%s", diff)
	}
	rep, err := s.Autoscaler.Reconcile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Action != autoscaler.ActionCompact || cmp.Diff([]types.NamespacedName{key("s3")}, rep.Requeued) != "" {
		t.Fatalf("cycle: action %v, requeued %v; want compaction requeueing ns/s3", rep.Action, rep.Requeued)
	}
	want := []eviction{{Pod: c.Namespace() + "/adapter-3", Source: "ns/s3", From: pl("adapter-3", 10)}}
	if diff := cmp.Diff(want, ev.got); diff != "" {
		t.Errorf("Evictor calls (-want +got):\n%s", diff)
	}
	// What eventing-kafka-broker's evictor then does: the placement leaves
	// the status, and the group's next Schedule places it elsewhere.
	srcs.write(key("s3"), func(v *source) { v.placements = nil })
	s.Observe(srcs.get(key("s3")))
	got, err := srcs.reconcile(ctx, s, key("s3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		if p.PodName == "adapter-3" {
			t.Errorf("s3 placed back on the draining pod: %v", got)
		}
	}
	if n := scheduler.GetTotalVReplicas(got); n != 10 {
		t.Errorf("s3 placed %d of 10: %v", n, got)
	}
}

// TestStatefulSetRequeueWithoutEvictor: with no Evictor the autoscaler's
// requeue goes to the work queue SetEnqueue gave, and fails (so the report
// does not count it) until one is given.
func TestStatefulSetRequeueWithoutEvictor(t *testing.T) {
	srcs := newSources()
	cfg := config.DefaultAutoscalerConfig()
	cfg.StabilizationWindow, cfg.ScaleDownCooldown = 0, 0
	s, _, ctx := newKafkaScheduler(t, srcs, nil, func() *config.AutoscalerConfig { return cfg }, packing)
	for i := 0; i < 4; i++ {
		run(t, ctx, srcs, s, fmt.Sprintf("s%d", i), 10)
	}
	run(t, ctx, srcs, s, "s0", 5)
	run(t, ctx, srcs, s, "s1", 5)
	rep, err := s.Autoscaler.Reconcile(ctx)
	if err == nil || !strings.Contains(err.Error(), "SetEnqueue was not called") || len(rep.Requeued) != 0 {
		t.Fatalf("without a work queue: requeued %v, error %v; want none and the error", rep.Requeued, err)
	}
	var mu sync.Mutex
	var queued []types.NamespacedName
	s.SetEnqueue(func(k types.NamespacedName) { mu.Lock(); queued = append(queued, k); mu.Unlock() })
	if rep, err = s.Autoscaler.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []types.NamespacedName{key("s3")}
	if diff := cmp.Diff(want, queued); diff != "" || cmp.Diff(want, rep.Requeued) != "" {
		t.Errorf("enqueued (-want +got):\n%s; report requeued %v", diff, rep.Requeued)
	}
}
