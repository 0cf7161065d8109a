package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	clienttesting "k8s.io/client-go/testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/statefulset"
)

func (e *asEnv) nodeOf(ord int32) string {
	e.t.Helper()
	p, err := e.c.Pod(ord)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.Spec.NodeName
}

func TestAutoscalerUnavailablePodDrainedAfterGrace(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, config: func(c *config.AutoscalerConfig) { c.UnavailablePodGrace = 5 * time.Minute }})
	for i := 0; i < 3; i++ {
		e.create(fmt.Sprintf("s%d", i), 3) // one per pod, by zone spread
	}
	if got := e.usedOn(); got[2] != 3 {
		t.Fatalf("setup: used = %v", got)
	}
	node := e.nodeOf(2)
	if err := e.c.FailNode(node); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.step(4 * time.Minute)
	if d := e.reconcile(); len(d.Draining) != 0 || len(d.Requeued) != 0 {
		t.Fatalf("within the grace: %+v", d)
	}
	e.step(2 * time.Minute)
	d := e.reconcile()
	if d.Draining[2] != evictor.ReasonUnavailable || len(d.Requeued) != 3 {
		t.Fatalf("after the grace: %+v", d)
	}
	if evs := e.events(); countPrefix(evs, "Warning PodDraining") != 1 {
		t.Fatalf("events = %q", evs)
	}
	e.work()
	if got := e.usedOn(); got[2] != 0 || got[0]+got[1] != 9 {
		t.Fatalf("after the move: used = %v", got)
	}
	for i := 0; i < 3; i++ {
		if total := vsched.TotalVReplicas(e.placementsOf(fmt.Sprintf("s%d", i))); total != 3 {
			t.Fatalf("s%d holds %d", i, total)
		}
	}
	// The node comes back: the drain is lifted.
	if err := e.c.RecoverNode(node); err != nil {
		t.Fatal(err)
	}
	e.sync()
	d = e.reconcile()
	if len(d.Draining) != 0 {
		t.Fatalf("after recovery: %+v", d)
	}
	if err := e.c.WaitFor(e.ctx, func() bool { return e.podAnnotation(2) == "" }); err != nil {
		t.Fatal("annotation not removed")
	}
}

func TestAutoscalerUnavailablePodScalesUpWhenNoRoom(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) { c.UnavailablePodGrace = time.Minute }})
	e.create("full", 30)
	if err := e.c.FailNode(e.nodeOf(2)); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.step(2 * time.Minute)
	d := e.reconcile()
	if d.Action != ActionScaleUp || d.Target != 4 || d.Draining[2] != evictor.ReasonUnavailable {
		t.Fatalf("decision = %+v, want a pod for the 10 vreplicas of the lost one", d)
	}
	e.settle()
	e.work()
	if got := e.usedOn(); got[2] != 0 || got[3] != 10 {
		t.Fatalf("used = %v", got)
	}
}

func TestAutoscalerOverCapacityExcessDrained(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2, profiles: packProfiles(t)})
	e.create("a", 6)
	e.create("b", 4) // pod 0 full: a 6, b 4
	// The controller restarts with a lower capacity.
	e.restart(7)
	d := e.reconcile()
	if d.Draining[0] != evictor.ReasonOverCapacity || len(d.Requeued) != 1 || d.Requeued[0] != e.key("b") {
		t.Fatalf("decision = %+v, want pod 0 draining and only b (the smallest covering the excess of 3) requeued", d)
	}
	e.work()
	if got := e.usedOn(); got[0] != 6 || got[1] != 4 {
		t.Fatalf("used = %v", got)
	}
	d = e.reconcile()
	if len(d.Draining) != 0 {
		t.Fatalf("drain not lifted: %+v", d)
	}
}

func TestAutoscalerRetriesConflict(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t)})
	var conflicts atomic.Int32
	e.c.Client().PrependReactor("update", "statefulsets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "scale" && conflicts.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "adapter", errors.New("modified"))
		}
		return false, nil, nil
	})
	e.create("a", 25)
	d := e.reconcile()
	if !d.Written || e.specReplicas() != 3 {
		t.Fatalf("decision = %+v, replicas %d", d, e.specReplicas())
	}
	if n := conflicts.Load(); n != 2 {
		t.Fatalf("%d scale updates, want a conflict then a success", n)
	}
}

func TestAutoscalerWritesOnlyFromTheSizeItDecidedFrom(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, profiles: packProfiles(t)})
	// Someone scaled to 5 after the cycle read 3.
	sets := e.c.Client().AppsV1().StatefulSets(e.c.Namespace())
	sc, err := sets.GetScale(e.ctx, e.c.StatefulSetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Spec.Replicas = 5
	if _, err := sets.UpdateScale(e.ctx, e.c.StatefulSetName(), sc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A scale-down decided from 3 is not written over 5.
	if ok, _, err := e.a.writeScale(e.ctx, 3, 2); ok || !errors.Is(err, errSizeChanged) {
		t.Fatalf("scale-down: written %v, err %v", ok, err)
	}
	// A scale-up to 4 is already covered by 5: nothing to write.
	if ok, _, err := e.a.writeScale(e.ctx, 3, 4); ok || err != nil {
		t.Fatalf("scale-up below the size: written %v, err %v", ok, err)
	}
	// A scale-up beyond it is safe to write.
	if ok, _, err := e.a.writeScale(e.ctx, 3, 6); !ok || err != nil || e.specReplicas() != 6 {
		t.Fatalf("scale-up: written %v, err %v, replicas %d", ok, err, e.specReplicas())
	}
}

func TestAutoscalerInvalidConfigKeepsLastGood(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) { c.MaxReplicas = 3 }})
	e.create("a", 100)
	e.reconcile() // the good configuration is seen
	e.settle()
	e.work()
	// A broken configuration arrives: refresh 0, max below min.
	e.setConfig(func(c *config.AutoscalerConfig) {
		c.RefreshPeriod = 0
		c.MinReplicas, c.MaxReplicas = 5, 4
	})
	d := e.reconcile()
	if d.Target != 3 || d.Written {
		t.Fatalf("decision = %+v, want max 3 of the last good configuration", d)
	}
	evs := e.events()
	if countPrefix(evs, "Warning InvalidAutoscalerConfig") != 1 {
		t.Fatalf("events = %q", evs)
	}
	e.reconcile()
	if evs := e.events(); countPrefix(evs, "Warning InvalidAutoscalerConfig") != 0 {
		t.Fatalf("the same rejection reported again: %q", evs)
	}
	// A good one applies.
	e.setConfig(func(c *config.AutoscalerConfig) { c.RefreshPeriod, c.MinReplicas, c.MaxReplicas = time.Second, 0, 6 })
	if d := e.reconcile(); d.Target != 6 {
		t.Fatalf("decision = %+v, want 6", d)
	}
}

func TestAutoscalerInvalidConfigMapKeepsLastGood(t *testing.T) {
	// Through config's live-reload store, as a controller wires it.
	var rejected atomic.Int32
	store := config.NewAutoscalerStore(quiet(), "", func(*corev1.ConfigMap, error) { rejected.Add(1) })
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t), autoscaler: func(c *Options) { c.Config = store.Config }})
	apply := func(data map[string]string) {
		store.OnConfigChanged(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultAutoscalerConfigMapName}, Data: data})
	}
	apply(map[string]string{config.KeyMaxReplicas: "2"})
	e.create("a", 100)
	if d := e.reconcile(); d.Target != 2 {
		t.Fatalf("decision = %+v, want max 2", d)
	}
	e.settle()
	apply(map[string]string{config.KeyMaxReplicas: "-4", config.KeyRefreshPeriod: "0s"})
	if rejected.Load() != 1 {
		t.Fatalf("%d rejections, want 1", rejected.Load())
	}
	for i := 0; i < 3; i++ {
		if d := e.reconcile(); d.Target != 2 || d.Written {
			t.Fatalf("decision = %+v, want the last good max of 2", d)
		}
	}
	// The store hands out a copy per call: a good configuration is not
	// reported as rejected, however often it is read.
	if evs := e.events(); countPrefix(evs, "Warning InvalidAutoscalerConfig") != 0 {
		t.Fatalf("events = %q", evs)
	}
}

func TestAutoscalerRefreshPeriodZeroIsNotABusyLoop(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, config: func(c *config.AutoscalerConfig) { c.RefreshPeriod = 0 }})
	var cycles atomic.Int32
	e.a.cfg.Policy = countingPolicy{&cycles}
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { e.a.Run(ctx); close(done) }()
	if err := e.c.WaitFor(e.ctx, func() bool { return cycles.Load() >= 1 && e.clk.HasWaiters() }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := cycles.Load(); n != 1 {
		t.Fatalf("%d cycles without time passing, want 1", n)
	}
	// The default period applies: 30s of fake time runs one more.
	e.step(30 * time.Second)
	if err := e.c.WaitFor(e.ctx, func() bool { return cycles.Load() == 2 && e.clk.HasWaiters() }); err != nil {
		t.Fatalf("cycles = %d", cycles.Load())
	}
	// A trigger runs a cycle without waiting for the period, but at most
	// one per MinTriggerInterval however many arrive.
	e.step(time.Second)
	for i := 0; i < 10; i++ {
		e.a.Trigger()
	}
	if err := e.c.WaitFor(e.ctx, func() bool { return cycles.Load() == 3 }); err != nil {
		t.Fatalf("cycles = %d", cycles.Load())
	}
	time.Sleep(20 * time.Millisecond)
	if n := cycles.Load(); n != 3 {
		t.Fatalf("%d cycles after a burst of triggers, want 3", n)
	}
	cancel()
	<-done
}

type countingPolicy struct{ n *atomic.Int32 }

func (p countingPolicy) Name() string { return "counting" }
func (p countingPolicy) Recommend(ctx context.Context, obs Observation) Recommendation {
	p.n.Add(1)
	return FitPolicy{}.Recommend(ctx, obs)
}

func TestAutoscalerTriggersDoNotResetScaleDownTimer(t *testing.T) {
	// stuck has 2 partitions and wants 30: 10 stay pending forever. Pods
	// 2..5 are idle. The pending source triggers the autoscaler over and
	// over; the window must still run out.
	e := newEnv(t, envOpts{replicas: 6, profiles: asProfiles(t, map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount"}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	}), config: func(c *config.AutoscalerConfig) { c.StabilizationWindow, c.ScaleDownCooldown = 5*time.Minute, 0 }})
	e.create("stuck", 30, 2)
	d := e.reconcile()
	since := d.ScaleDownSince
	if d.Action != ActionHold || since.IsZero() || d.Unplaceable != 10 {
		t.Fatalf("first cycle: %+v", d)
	}
	for i := 0; i < 10; i++ {
		e.step(30 * time.Second)
		e.schedule(e.key("stuck")) // still pending: triggers
		d = e.reconcile()
		if !d.ScaleDownSince.Equal(since) {
			t.Fatalf("cycle %d moved scale-down-since from %v to %v", i, since, d.ScaleDownSince)
		}
		if d.Written {
			break
		}
	}
	if !d.Written || d.Target != 2 {
		t.Fatalf("after the window: %+v", d)
	}
}

func TestAutoscalerDrainedEmptyPodsDoNotBlockScaleDown(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 5, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
	}})
	e.create("a", 15) // pods 0 (10) and 1 (5)
	// An operator drained pods 3 and 4 (empty), and pod 1, which holds 5
	// vreplicas that pod 2 has room for.
	for _, ord := range []int32{1, 3, 4} {
		if err := e.c.SetDraining(ord, true); err != nil {
			t.Fatal(err)
		}
	}
	e.sync()
	d := e.reconcile()
	if !d.Written || d.Target != 3 {
		t.Fatalf("decision = %+v, want the empty drained pods removed", d)
	}
	// Pod 1's drain is the operator's: the autoscaler never lifts it.
	e.settle()
	e.reconcile()
	if got := e.podAnnotation(1); got != "true" {
		t.Fatalf("pod 1 annotation = %q", got)
	}
}

func TestAutoscalerOnlyTheLeaderScales(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t)})
	follower := e.addReplica(false, nil)
	e.create("a", 35)
	df, err := follower.a.Reconcile(e.ctx)
	if err != nil || df.Action != ActionHold || df.Written {
		t.Fatalf("follower: %+v, %v", df, err)
	}
	d := e.reconcile()
	if !d.Written || d.Target != 4 {
		t.Fatalf("leader: %+v", d)
	}
	// Running side by side for a while, only the leader ever writes.
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { follower.a.Run(ctx); close(done) }()
	for i := 0; i < 5; i++ {
		e.step(30 * time.Second)
		e.reconcile()
	}
	cancel()
	<-done
	if n := e.scaleUpdates(); n != 1 {
		t.Fatalf("%d scale updates, want 1", n)
	}
}

// minSpread is a filter that makes a source span at least n pods before a
// pod takes a second vreplica of it, as a minimum-replicas spread does.
type minSpread struct{ n int }

func (minSpread) Name() string { return "MinSpread" }
func (p minSpread) Filter(_ context.Context, d *framework.Decision, ord int32) *framework.Status {
	if d.OnPod(ord) > 0 && d.PodsHeld() < p.n {
		return framework.NewStatus(framework.Unschedulable, "the source must span more pods first")
	}
	return nil
}

func TestAutoscalerCountsMinimumSpreadPlacements(t *testing.T) {
	place, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{podfitsresources.New(), minSpread{n: 4}},
		[]framework.WeightedScore{{Plugin: lowestordinalpriority.New(), Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	def, err := statefulset.ProfilesFromConfigMaps(context.Background(), inTree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps := config.Profiles{Place: place, Remove: def().Remove}
	e := newEnv(t, envOpts{replicas: 2, profiles: func() config.Profiles { return ps }})
	// 4 vreplicas would fit one pod of 10, but the profile spreads them
	// over 4 pods: the autoscaler must ask for 4, not 1.
	e.create("a", 4)
	if p := e.pending(); p != 2 {
		t.Fatalf("pending = %d", p)
	}
	d := e.reconcile()
	if d.Target != 4 {
		t.Fatalf("decision = %+v, want 4", d)
	}
	e.settle()
	e.work()
	if p := e.pending(); p != 0 {
		t.Fatalf("pending after the scale-up = %d", p)
	}
}

func TestAutoscalerHoldsWhenBlind(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t)})
	e.create("a", 35)
	e.src.FailList(errors.New("lister down"))
	d := e.reconcile()
	if d.Action != ActionHold || d.Written || e.specReplicas() != 1 {
		t.Fatalf("lister failing: %+v", d)
	}
	e.src.FailList(nil)

	// A scheduler whose informers never synced.
	factory := informers.NewSharedInformerFactoryWithOptions(e.c.Client(), 0, informers.WithNamespace(e.c.Namespace()))
	s, err := statefulset.New(e.ctx, statefulset.Config{Namespace: e.c.Namespace(), Name: e.c.StatefulSetName(), Capacity: 10, Lister: e.src.List, ListerSynced: e.src.HasSynced,
		Informers: statefulset.InformersFromFactory(factory), Profiles: packProfiles(t), AlwaysLeader: true})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(e.ctx, Options{Scheduler: s, Client: e.c.Client(), Cache: CacheFromFactory(factory)})
	if err != nil {
		t.Fatal(err)
	}
	d, err = a.Reconcile(e.ctx)
	if err != nil || d.Action != ActionHold || d.Written {
		t.Fatalf("informers not synced: %+v, %v", d, err)
	}
	if n := e.scaleUpdates(); n != 0 {
		t.Fatalf("%d scale updates while blind", n)
	}
}

func TestAutoscalerPausedAndRecommendOnly(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) { c.RecommendOnly = true }})
	e.create("a", 35)
	d := e.reconcile()
	if d.Written || !d.RecommendOnly || d.Target != 4 || e.specReplicas() != 1 {
		t.Fatalf("recommend-only: %+v", d)
	}
	if evs := e.events(); countPrefix(evs, "Normal ScaleRecommended") != 1 {
		t.Fatalf("events = %q", evs)
	}
	patch := []byte(`{"metadata":{"annotations":{"` + AnnotationPaused + `":"true"}}}`)
	if _, err := e.c.Client().AppsV1().StatefulSets(e.c.Namespace()).Patch(e.ctx, e.c.StatefulSetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.WaitFor(e.ctx, func() bool {
		set, err := e.a.statefulSet(e.ctx)
		return err == nil && set.Annotations[AnnotationPaused] == "true"
	}); err != nil {
		t.Fatal("pause not seen")
	}
	e.setConfig(func(c *config.AutoscalerConfig) { c.RecommendOnly = false })
	d = e.reconcile()
	if d.Written || e.specReplicas() != 1 {
		t.Fatalf("paused: %+v", d)
	}
	if n := e.scaleUpdates(); n != 0 {
		t.Fatalf("%d scale updates", n)
	}
}

func TestAutoscalerScalesToZero(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, config: func(c *config.AutoscalerConfig) { c.StabilizationWindow, c.ScaleDownCooldown = time.Minute, 0 }})
	e.create("a", 5)
	if err := e.src.Delete(e.key("a")); err != nil {
		t.Fatal(err)
	}
	e.s.Forget(e.key("a"))
	e.reconcile()
	e.step(time.Minute)
	if d := e.reconcile(); !d.Written || d.Target != 0 {
		t.Fatalf("decision = %+v, want 0", d)
	}
	e.settle()
	// From zero, a new source brings the StatefulSet back, one pod per
	// zone.
	e.create("b", 5)
	if d := e.reconcile(); !d.Written || d.Target != 3 || d.Fit != 1 {
		t.Fatalf("from zero: %+v", d)
	}
	e.settle()
	e.work()
	if p := e.pending(); p != 0 {
		t.Fatalf("pending = %d", p)
	}
	if err := e.src.Delete(e.key("b")); err != nil {
		t.Fatal(err)
	}
	e.s.Forget(e.key("b"))
	// With min replicas 1 (and zone spread), 3 pods stay.
	e.setConfig(func(c *config.AutoscalerConfig) { c.MinReplicas = 1 })
	if d := e.reconcile(); d.Target != 3 {
		t.Fatalf("decision = %+v, want 3 (min 1 rounded to the zones)", d)
	}
}

func TestAutoscalerUtilizationPolicy(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.Policy = config.PolicyUtilization
		c.UtilizationUpper, c.UtilizationLower = 0.8, 0.5
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
	}})
	e.create("a", 17) // 0.85 of 20: above the upper threshold
	d := e.reconcile()
	if d.Policy != config.PolicyUtilization || d.Target != 3 {
		t.Fatalf("decision = %+v, want 3 (17/(10*0.65) rounded up)", d)
	}
	e.settle()
	e.update("a", 14) // 0.47 of 30: below the lower threshold
	if d = e.reconcile(); d.Target != 3 && d.Desired != 3 {
		t.Fatalf("decision = %+v", d)
	}
	e.update("a", 20) // 0.67: within the band, nothing changes
	if d = e.reconcile(); d.Desired != 3 || d.Action != ActionNone {
		t.Fatalf("decision = %+v, want to hold 3", d)
	}
}

func TestAutoscalerExportsMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t), autoscaler: func(c *Options) { c.MeterProvider = provider }})
	e.create("a", 25)
	e.reconcile()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Gauge[int64]:
				got[m.Name] = data.DataPoints[0].Value
			case metricdata.Sum[int64]:
				got[m.Name] = data.DataPoints[0].Value
			}
		}
	}
	want := map[string]int64{MetricDesiredReplicas: 3, MetricCurrentReplicas: 1, MetricPendingVReplicas: 15, MetricFreeCapacity: 0, MetricScaleChanges: 1}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("metrics = %v, want %v", got, want)
		}
	}
}

func TestUtilizationPolicyHysteresis(t *testing.T) {
	p := UtilizationPolicy{}
	cfg := config.DefaultAutoscalerConfig()
	obs := func(current int32, held int64) Observation {
		return Observation{Current: current, Capacity: 10, Held: held, Config: cfg}
	}
	for _, c := range []struct {
		current int32
		held    int64
		want    int32
	}{
		{10, 85, 14}, // 0.85 > 0.8: to 0.65
		{10, 80, 10}, // at the upper threshold: hold
		{10, 50, 10}, // at the lower threshold: hold
		{10, 45, 7},  // 0.45 < 0.5: to 0.65
		{0, 0, 0},
		{0, 5, 1},
	} {
		if r := p.Recommend(context.Background(), obs(c.current, c.held)); r.Replicas != c.want {
			t.Errorf("current %d held %d: %+v, want %d", c.current, c.held, r, c.want)
		}
	}
	// Never below the fit.
	o := obs(10, 45)
	o.Fit = 9
	if r := p.Recommend(context.Background(), o); r.Replicas != 9 {
		t.Errorf("fit floor: %+v", r)
	}
}

func TestAutoscalerNeverExceedsWhatTheProfileCanUse(t *testing.T) {
	// 50 vreplicas with 3 partitions on pods of 10: 3 pods hold 30, and
	// no number of pods places the other 20.
	e := newEnv(t, envOpts{replicas: 1, profiles: asProfiles(t, map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount"}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	})})
	e.create("p", 50, 3)
	d := e.reconcile()
	if d.Target != 3 || d.Unplaceable != 20 {
		t.Fatalf("decision = %+v, want 3 pods and 20 unplaceable", d)
	}
	e.settle()
	e.work()
	if d = e.reconcile(); d.Written || d.Action != ActionNone || d.Pending != 20 {
		t.Fatalf("at 3 pods: %+v", d)
	}
}
