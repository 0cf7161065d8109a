package ekbtest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	eventingduckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"
	logtesting "knative.dev/pkg/logging/testing"
	"knative.dev/pkg/reconciler"

	kafkainternals "knative.dev/eventing-kafka-broker/control-plane/pkg/apis/internalskafkaeventing/v1alpha1"
	"knative.dev/eventing-kafka-broker/control-plane/pkg/reconciler/consumergroup"

	knative "github.com/vsched/vsched/adapters/knative"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

const systemNamespace = "knative-eventing"

// createStatefulSetScheduler is the consumergroup controller's function of
// that name with the lines docs/eventing-kafka-broker.md changes: the
// adapter's NewStatefulSet with the same configuration fields, plus the
// informers, the client and ListerSynced vsched needs.
func createStatefulSetScheduler(ctx context.Context, c consumergroup.SchedulerConfig, lister scheduler.VPodLister, evict scheduler.Evictor, mc *memcluster.Cluster, extra func(*knative.StatefulSetConfig)) (consumergroup.Scheduler, error) {
	pods := mc.InformerFactory().Core().V1().Pods()
	cfg := knative.StatefulSetConfig{
		StatefulSetNamespace: systemNamespace,
		StatefulSetName:      c.StatefulSetName,
		PodCapacity:          c.Capacity,
		RefreshPeriod:        c.RefreshPeriod,
		Evictor:              evict,
		VPodLister:           lister,
		PodLister:            pods.Lister().Pods(systemNamespace),
		MinReplicas:          c.MinReplicas,
		ListerSynced:         func() bool { return true },
		Informers:            statefulset.InformersFromFactory(mc.InformerFactory()),
		Client:               mc.Client(),
		Clock:                mc.Clock(),
	}
	if extra != nil {
		extra(&cfg)
	}
	ss, err := knative.NewStatefulSet(ctx, cfg)
	if err != nil {
		return consumergroup.Scheduler{}, err
	}
	return consumergroup.Scheduler{Scheduler: ss, SchedulerConfig: c}, nil
}

type env struct {
	ctx    context.Context
	mc     *memcluster.Cluster
	groups *groups
	r      *consumergroup.Reconciler
	sched  *knative.StatefulSetScheduler
	evicts []string
}

func newEnv(t *testing.T, extra func(*knative.StatefulSetConfig)) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(logtesting.TestContextWithLogger(t))
	mc, err := memcluster.New(ctx, memcluster.Options{
		Namespace: systemNamespace, StatefulSetName: kafkainternals.SourceStatefulSetName,
		Zones: []string{"a"}, Replicas: 4, Capacity: 10, DrainingAnnotation: scheduler.PodAnnotationKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); mc.Shutdown() })
	e := &env{ctx: ctx, mc: mc, groups: newGroups()}
	c := consumergroup.SchedulerConfig{StatefulSetName: kafkainternals.SourceStatefulSetName, RefreshPeriod: 30 * time.Second, Capacity: 10, MinReplicas: 1}
	s, err := createStatefulSetScheduler(ctx, c, e.groups.list, e.groups.evict(&e.evicts), mc, extra)
	if err != nil {
		t.Fatal(err)
	}
	schedulers := map[string]consumergroup.Scheduler{consumergroup.KafkaSourceScheduler: s}
	e.r = &consumergroup.Reconciler{SchedulerFunc: func(k string) (consumergroup.Scheduler, bool) { s, ok := schedulers[k]; return s, ok }}
	// The controller's PromoteFunc, with the adapter's type in its type assertion.
	for _, v := range schedulers {
		if ss, ok := v.Scheduler.(*knative.StatefulSetScheduler); ok {
			e.sched = ss
			if err := ss.Promote(reconciler.UniversalBucket(), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

func key(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: name} }

// schedule is what the consumergroup Reconciler's schedule method does with
// the Scheduler it looks up: Schedule, sort by pod name, write the status.
func (e *env) schedule(t *testing.T, name string, replicas int32) []eventingduckv1alpha1.Placement {
	t.Helper()
	cg := e.groups.write(key(name), func(cg *kafkainternals.ConsumerGroup) { cg.Spec.Replicas = ptr.To(replicas) })
	return e.reconcile(t, cg)
}

func (e *env) reconcile(t *testing.T, cg *kafkainternals.ConsumerGroup) []eventingduckv1alpha1.Placement {
	t.Helper()
	s, ok := e.r.SchedulerFunc("kafkasource")
	if !ok {
		t.Fatal("no scheduler for kafkasource")
	}
	placements, err := s.Schedule(e.ctx, cg)
	if err != nil {
		t.Fatalf("Schedule(%s): %v", cg.Name, err)
	}
	sort.SliceStable(placements, func(i, j int) bool { return placements[i].PodName < placements[j].PodName })
	cg = e.groups.write(cg.GetKey(), func(cg *kafkainternals.ConsumerGroup) {
		cg.Status.Placements = placements
		cg.MarkScheduleSucceeded()
	})
	e.sched.Observe(cg)
	return placements
}

func pl(ord int, n int32) eventingduckv1alpha1.Placement {
	return eventingduckv1alpha1.Placement{PodName: fmt.Sprintf("%s-%d", kafkainternals.SourceStatefulSetName, ord), VReplicas: n}
}

func TestConsumerGroupsHonourUnschedulablePods(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.mc.AnnotatePod(0, scheduler.PodAnnotationKey, "true"); err != nil {
		t.Fatal(err)
	}
	if err := e.mc.WaitFor(e.ctx, func() bool { return e.sched.StatefulSet.Pods()[0].Draining }); err != nil {
		t.Fatal(err)
	}
	got := e.schedule(t, "cg", 12)
	// The default policy fills pods in use first, from the lowest ordinal,
	// and leaves pod 0 out.
	want := []eventingduckv1alpha1.Placement{pl(1, 10), pl(2, 2)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placements with pod 0 unschedulable (-want +got):\n%s", diff)
	}
}

// TestConsumerGroupsEvictedOnCompaction: four groups of 10 on four pods;
// two shrink to 5, so 30 vreplicas fit on three pods. The autoscaler drains
// the last pod, calls the Evictor with that pod and the group on it, the
// evictor takes the placement out of the status, and the group's next
// reconcile places it on the pods that stay.
func TestConsumerGroupsEvictedOnCompaction(t *testing.T) {
	e := newEnv(t, func(c *knative.StatefulSetConfig) {
		reg := plugins.MustInTreeRegistry()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config-scheduler"}, Data: map[string]string{
			"predicates": `[{"Name": "PodFitsResources"}]`,
			"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
		}}
		p, err := config.ProfilesFromConfigMaps(context.Background(), reg, cm, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := config.DefaultAutoscalerConfig()
		a.MinReplicas, a.RefreshPeriod = c.MinReplicas, c.RefreshPeriod
		a.StabilizationWindow, a.ScaleDownCooldown = 0, 0
		c.Profiles, c.Autoscaler, c.MinReplicas, c.RefreshPeriod = p, func() *config.AutoscalerConfig { return a }, 0, 0
	})
	for i := 0; i < 4; i++ {
		if got, want := e.schedule(t, fmt.Sprintf("cg%d", i), 10), []eventingduckv1alpha1.Placement{pl(i, 10)}; !cmp.Equal(got, want) {
			t.Fatalf("cg%d placed %v, want %v", i, got, want)
		}
	}
	e.schedule(t, "cg0", 5)
	e.schedule(t, "cg1", 5)
	rep, err := e.sched.Autoscaler.Reconcile(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Action != autoscaler.ActionCompact || rep.Desired != 3 {
		t.Fatalf("autoscaler: %v to %d, want compaction to 3", rep.Action, rep.Desired)
	}
	if got, _ := e.mc.Pod(3); got.Annotations[scheduler.PodAnnotationKey] == "" {
		t.Errorf("pod 3 not marked with %s: %v", scheduler.PodAnnotationKey, got.Annotations)
	}
	want := []string{"kafka-source-dispatcher-3 ns/cg3 kafka-source-dispatcher-3=10"}
	if diff := cmp.Diff(want, e.evicts); diff != "" {
		t.Fatalf("Evictor calls (-want +got):\n%s", diff)
	}
	cg3 := e.groups.get(key("cg3"))
	if len(cg3.Status.Placements) != 0 {
		t.Fatalf("the evictor left cg3's placements %v", cg3.Status.Placements)
	}
	e.sched.Observe(cg3)
	got := e.reconcile(t, cg3)
	if diff := cmp.Diff([]eventingduckv1alpha1.Placement{pl(0, 5), pl(1, 5)}, got); diff != "" {
		t.Errorf("cg3 after eviction (-want +got):\n%s", diff)
	}
}
