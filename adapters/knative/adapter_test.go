package knative_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	duckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"
	"knative.dev/pkg/controller"
	logtesting "knative.dev/pkg/logging/testing"

	"github.com/vsched/vsched"
	knative "github.com/vsched/vsched/adapters/knative"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// The adapter is a Knative scheduler.
var _ scheduler.Scheduler = knative.New(nil)

// knativeSchedulerConfig is config-scheduler as Knative's scheduler README
// gives it (Args as JSON strings), unchanged.
var knativeSchedulerConfig = map[string]string{
	"predicates": `[
		{"Name": "PodFitsResources"},
		{"Name": "NoMaxResourceCount", "Args": "{\"NumPartitions\": 100}"},
		{"Name": "EvenPodSpread", "Args": "{\"MaxSkew\": 2}"}
	]`,
	"priorities": `[
		{"Name": "AvailabilityZonePriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		{"Name": "LowestOrdinalPriority", "Weight": 2}
	]`,
}

func key(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: name} }

func pl(pod string, n int32) duckv1alpha1.Placement {
	return duckv1alpha1.Placement{PodName: pod, VReplicas: n}
}

// newScheduler builds a vsched StatefulSet scheduler over a memcluster of
// three zones, one pod of capacity 4 in each, configured by Knative's
// ConfigMap, and returns it behind the adapter.
func newScheduler(t *testing.T, srcs *sources, leader bool) (*knative.Scheduler, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(logtesting.TestContextWithLogger(t))
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 3, Capacity: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "config-scheduler"}, Data: knativeSchedulerConfig}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sched, err := statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: c.Capacity(),
		Lister: knative.Lister(srcs.list), ListerSynced: func() bool { return true },
		Informers: statefulset.InformersFromFactory(c.InformerFactory()), Profiles: profiles, AlwaysLeader: leader, Clock: c.Clock(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return knative.New(sched, knative.WithRequeueAfter(3*time.Second)), ctx
}

func TestScheduleOnMemcluster(t *testing.T) {
	srcs := newSources()
	sched, ctx := newScheduler(t, srcs, true)

	// Spread across the three zones, one pod each.
	srcs.write(key("one"), func(s *source) { s.vreplicas = 6 })
	got, err := srcs.reconcile(ctx, sched, key("one"))
	if err != nil {
		t.Fatal(err)
	}
	want := []duckv1alpha1.Placement{pl("adapter-0", 2), pl("adapter-1", 2), pl("adapter-2", 2)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placements of one (-want +got):\n%s", diff)
	}

	// Only 6 of 10 fit: the partial placements come back with an error
	// Knative's controller requeues.
	srcs.write(key("two"), func(s *source) { s.vreplicas = 10 })
	got, err = srcs.reconcile(ctx, sched, key("two"))
	if !errors.Is(err, vsched.ErrNotEnoughReplicas) || vsched.PendingCount(err) != 4 {
		t.Fatalf("Schedule(two) error = %v, want 4 pending", err)
	}
	if ok, after := controller.IsRequeueKey(err); !ok || after != 3*time.Second {
		t.Errorf("IsRequeueKey(%v) = %v, %v; want true, 3s", err, ok, after)
	}
	if n := scheduler.GetTotalVReplicas(got); n != 6 {
		t.Errorf("two: %d placed (%v), want 6", n, got)
	}

	// Scaling one down frees room that two takes once the informer has
	// delivered one's status.
	srcs.write(key("one"), func(s *source) { s.vreplicas = 3 })
	if got, err = srcs.reconcile(ctx, sched, key("one")); err != nil || scheduler.GetTotalVReplicas(got) != 3 {
		t.Fatalf("Schedule(one) down to 3 = %v, %v", got, err)
	}
	if _, err = srcs.reconcile(ctx, sched, key("two")); vsched.PendingCount(err) != 4 {
		t.Errorf("Schedule(two) before one's status is observed: %v; want 4 pending", err)
	}
	sched.Observe(srcs.get(key("one")))
	if got, err = srcs.reconcile(ctx, sched, key("two")); err == nil || vsched.PendingCount(err) != 1 {
		t.Errorf("Schedule(two) after one shrank = %v, %v; want 1 pending", got, err)
	}
}

func TestScheduleErrors(t *testing.T) {
	srcs := newSources()
	follower, ctx := newScheduler(t, srcs, false)
	srcs.write(key("one"), func(s *source) { s.vreplicas = 2 })
	ps, err := follower.Schedule(ctx, srcs.get(key("one")))
	if !errors.Is(err, vsched.ErrNotLeader) || ps != nil {
		t.Errorf("follower: %v, %v; want ErrNotLeader and no placements", ps, err)
	}
	if ok, _ := controller.IsRequeueKey(err); !ok {
		t.Errorf("follower's error %v is not requeued", err)
	}

	leader, ctx := newScheduler(t, srcs, true)
	srcs.write(key("bad"), func(s *source) { s.vreplicas = -1 })
	_, err = leader.Schedule(ctx, srcs.get(key("bad")))
	if err == nil {
		t.Fatal("negative vreplicas accepted")
	}
	if ok, _ := controller.IsRequeueKey(err); ok {
		t.Errorf("a permanent error %v asks for a requeue", err)
	}
}
