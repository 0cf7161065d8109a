package embedkit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"knative.dev/pkg/configmap"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/statefulset"
)

func TestCondition(t *testing.T) {
	two := []vsched.Placement{{PodName: "a-0", VReplicas: 2}, {PodName: "a-1", VReplicas: 1}}
	for _, tc := range []struct {
		name string
		err  error
		want metav1.Condition
	}{
		{"placed", nil, metav1.Condition{Type: "Scheduled", Status: "True", Reason: "AllPlaced", Message: "3 vreplica(s) placed on 2 pod(s)"}},
		{"pending with the rule", fmt.Errorf("wrapped: %w", &vsched.PendingError{Pending: 4, Reason: "MaxSkew 1 would be exceeded"}),
			metav1.Condition{Type: "Scheduled", Status: "False", Reason: "NotEnoughCapacity", Message: "4 vreplica(s) pending: MaxSkew 1 would be exceeded"}},
		{"pending without a rule", &vsched.PendingError{Pending: 1},
			metav1.Condition{Type: "Scheduled", Status: "False", Reason: "NotEnoughCapacity", Message: "1 vreplica(s) pending"}},
		{"statefulset missing", fmt.Errorf("ns/src: %w", &vsched.MissingError{Why: "StatefulSet vsched/adapter was deleted at 2025-01-01T00:00:00Z"}),
			metav1.Condition{Type: "Scheduled", Status: "False", Reason: "StatefulSetMissing",
				Message: "StatefulSet vsched/adapter was deleted at 2025-01-01T00:00:00Z; the placements stay as they are"}},
		{"refused", errors.New("vreplicas is negative (-1)"),
			metav1.Condition{Type: "Scheduled", Status: "False", Reason: "ScheduleFailed", Message: "vreplicas is negative (-1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, embedkit.Condition(two, tc.err)); diff != "" {
				t.Errorf("Condition (-want +got):\n%s", diff)
			}
		})
	}
}

// start builds an embedkit.Scheduler over a memcluster of 2 pods of capacity
// 2, with its autoscaler, configured by ConfigMaps through
// WatchConfigMaps: the lowest ordinals first, at most 3 replicas. It
// returns it with the sources and the requeued keys. opts change the
// cluster's and the scheduler's options before they are built.
func start(t *testing.T, alwaysLeader bool, opts ...func(*memcluster.Options, *embedkit.Options)) (*embedkit.Scheduler, *memcluster.Cluster, *memcluster.Sources, func() []types.NamespacedName) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cm := func(name string, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "vsched", Name: name}, Data: data}
	}
	live, err := embedkit.WatchConfigMaps(ctx, configmap.NewStaticWatcher(
		cm(config.DefaultSchedulerConfigMapName, map[string]string{
			"predicates": `[{"Name": "PodFitsResources"}]`,
			"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
		}),
		cm(config.DefaultDeschedulerConfigMapName, nil),
		cm(config.DefaultAutoscalerConfigMapName, map[string]string{"max-replicas": "3"}),
	), "vsched", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := live.AutoscalerConfig().MaxReplicas; got != 3 {
		t.Fatalf("config-autoscaler's max-replicas = %d; want 3", got)
	}
	if got, want := live.DrainMoveLimit(), live.AutoscalerConfig.DrainMoveLimit(); got != want {
		t.Fatalf("LiveConfig.DrainMoveLimit() = %d; config-autoscaler's is %d", got, want)
	}
	mo := memcluster.Options{Zones: []string{"a", "b"}, Replicas: 2, Capacity: 2}
	var eo embedkit.Options
	for _, o := range opts {
		o(&mo, &eo)
	}
	c, err := memcluster.New(ctx, mo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	sources := memcluster.NewSources()
	var mu sync.Mutex
	var requeued []types.NamespacedName
	eo = embedkit.Options{
		Namespace: c.Namespace(), StatefulSet: c.StatefulSetName(), Capacity: c.Capacity(),
		Informers:       statefulset.InformersFromFactory(c.InformerFactory()),
		AutoscalerCache: autoscaler.CacheFromFactory(c.InformerFactory()),
		Lister:          embedkit.Lister(sources.List, func(v vsched.VPod) (vsched.VPod, error) { return v, nil }),
		ListerSynced:    sources.HasSynced, Profiles: live.Profiles, AutoscalerConfig: live.AutoscalerConfig, Client: c.Client(), AlwaysLeader: alwaysLeader,
		Requeue: func(k types.NamespacedName) { mu.Lock(); requeued = append(requeued, k); mu.Unlock() },
	}
	for _, o := range opts {
		o(&mo, &eo)
	}
	s, err := embedkit.New(ctx, eo)
	if err != nil {
		t.Fatal(err)
	}
	if s.Autoscaler == nil {
		t.Fatal("no autoscaler with a Client")
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return s, c, sources, func() []types.NamespacedName {
		mu.Lock()
		defer mu.Unlock()
		return append([]types.NamespacedName(nil), requeued...)
	}
}

func TestDecide(t *testing.T) {
	s, _, sources, _ := start(t, true)
	src := mustCreate(t, sources, 5)
	d := s.Decide(context.Background(), src)
	if !d.Write || d.Err != nil || d.RequeueAfter != 0 {
		t.Fatalf("Decide(5 vreplicas on 4 slots) = %+v; want written, no error", d)
	}
	placed := map[string]int32{}
	for _, p := range d.Placements {
		placed[p.PodName] = p.VReplicas
	}
	if diff := cmp.Diff(map[string]int32{"adapter-0": 2, "adapter-1": 2}, placed); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
	want := metav1.Condition{Type: embedkit.ConditionScheduled, Status: metav1.ConditionFalse, Reason: embedkit.ReasonNotEnoughCapacity}
	if diff := cmp.Diff(want, d.Condition, cmpopts.IgnoreFields(metav1.Condition{}, "Message")); diff != "" {
		t.Errorf("condition (-want +got):\n%s", diff)
	}
	if got, _ := sources.Update(key, -1); s.Decide(context.Background(), got).Err == nil {
		t.Error("Decide(-1 vreplicas) has no error")
	}
}

// TestDecideMovedEvent: a decision that moves vreplicas off a pod whose
// node was lost says so, for the Event on the source.
func TestDecideMovedEvent(t *testing.T) {
	s, c, sources, _ := start(t, true)
	ctx := context.Background()
	mustCreate(t, sources, 2)
	if _, err := sources.Reconcile(ctx, s, key); err != nil { // adapter-0
		t.Fatal(err)
	}
	if _, ok := embedkit.MovedEvent(s.Decide(ctx, mustGet(t, sources, key))); ok {
		t.Error("an Event for a decision that moved nothing")
	}
	if err := c.AnnotatePod(0, c.DrainingAnnotation(), "unavailable"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	d := s.Decide(ctx, mustGet(t, sources, key))
	if diff := cmp.Diff(statefulset.Moves{statefulset.MoveLostNode: 2}, d.Moved); diff != "" {
		t.Errorf("Moved (-want +got):\n%s", diff)
	}
	msg, ok := embedkit.MovedEvent(d)
	if want := "moved 2 vreplica(s) off pods whose node was lost to other pods"; !ok || msg != want {
		t.Errorf("MovedEvent = %q, %v; want %q", msg, ok, want)
	}
}

// key is the source the tests create.
var key = types.NamespacedName{Namespace: "ns", Name: "src"}

// mustCreate creates the source key wanting vreplicas.
func mustCreate(t *testing.T, sources *memcluster.Sources, vreplicas int32) *vsched.PlainVPod {
	t.Helper()
	src, err := sources.Create(key, vreplicas)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func mustGet(t *testing.T, sources *memcluster.Sources, key types.NamespacedName) vsched.VPod {
	t.Helper()
	v, err := sources.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDecideStatefulSetMissing: while the StatefulSet is deleted, Decide
// writes no placements, gives the condition that names it, and asks for a
// retry; once it is back, decisions are written again.
func TestDecideStatefulSetMissing(t *testing.T) {
	s, c, sources, _ := start(t, true)
	ctx := context.Background()
	mustCreate(t, sources, 2)
	if _, err := sources.Reconcile(ctx, s, key); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteStatefulSet(true); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	d := s.Decide(ctx, mustGet(t, sources, key))
	// The scheduler runs on the real clock: the time of the delete is now.
	why := d.StatefulSetMissing
	if !strings.HasPrefix(why, "StatefulSet vsched/adapter was deleted at ") {
		t.Errorf("Verdict.StatefulSetMissing = %q; want it to name the deleted StatefulSet", why)
	}
	want := embedkit.Verdict{
		Condition: metav1.Condition{Type: embedkit.ConditionScheduled, Status: metav1.ConditionFalse, Reason: embedkit.ReasonStatefulSetMissing,
			Message: why + "; the placements stay as they are"},
		RequeueAfter:       embedkit.StatefulSetMissingDelay,
		StatefulSetMissing: why,
	}
	if diff := cmp.Diff(want, d, cmpopts.IgnoreFields(embedkit.Verdict{}, "Moved")); diff != "" {
		t.Errorf("Decide while the StatefulSet is deleted (-want +got):\n%s", diff)
	}
	if err := c.CreateStatefulSet(2); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if d := s.Decide(ctx, mustGet(t, sources, key)); !d.Write || d.StatefulSetMissing != "" || d.Condition.Reason != embedkit.ReasonAllPlaced {
		t.Errorf("Decide once the StatefulSet is back = %+v; want its placements written", d)
	}
}

func TestDecideNotLeader(t *testing.T) {
	s, _, sources, _ := start(t, false)
	src := mustCreate(t, sources, 1)
	if d := s.Decide(context.Background(), src); !cmp.Equal(d, embedkit.Verdict{}) {
		t.Errorf("a follower's Decide = %+v; want nothing to do", d)
	}
}

func TestSourceHandler(t *testing.T) {
	s, _, sources, requeued := start(t, true)
	src := mustCreate(t, sources, 2)
	var enqueued []any
	h := s.SourceHandler(func(obj any) (vsched.VPod, bool) { v, ok := obj.(vsched.VPod); return v, ok },
		func(obj any) { enqueued = append(enqueued, obj) })
	h.OnAdd(src, false)
	if _, err := s.Schedule(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Source(key); !ok || vsched.TotalVReplicas(v.Reserved) != 2 {
		t.Fatalf("Source(%s) = %+v, %v; want 2 reserved", key, v, ok)
	}
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: key.String(), Obj: src})
	if _, ok := s.Source(key); ok {
		t.Error("the source is still known after its delete event")
	}
	if len(enqueued) != 1 || len(requeued()) != 0 {
		t.Errorf("enqueued %d, requeued %v; want the add enqueued and nothing requeued", len(enqueued), requeued())
	}
}
