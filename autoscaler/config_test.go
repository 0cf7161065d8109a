package autoscaler

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/config"
)

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
