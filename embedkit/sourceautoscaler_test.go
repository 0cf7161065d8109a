package embedkit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/sourceautoscaler"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

// TestSourceAutoscalerWiring: the source autoscaler built by embedkit decides
// from its provider, writes through the embedder's callback, and reports
// each change as an Event on the source with the numbers.
func TestSourceAutoscalerWiring(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	prov := scripted.New("lag", clk.Now)
	rec := record.NewFakeRecorder(10)
	var sources *memcluster.Sources
	s, _, srcs, _ := start(t, true, func(_ *memcluster.Options, o *embedkit.Options) {
		o.SourceAutoscaler = &embedkit.SourceAutoscalerOptions{
			Providers: []signal.Provider{prov}, Clock: clk, Recorder: rec, Kind: "SampleSource", APIVersion: "samples.vsched.dev/v1alpha1",
			Writer: sourceautoscaler.WriterFunc(func(_ context.Context, k types.NamespacedName, n int32) error {
				_, err := sources.Update(k, n)
				return err
			}),
		}
	})
	sources = srcs
	mustCreate(t, srcs, 2)
	h := s.SourceAutoscalerHandler(func(obj any) (sourceautoscaler.Source, bool) {
		return sourceautoscaler.Source{Key: key, VReplicas: obj.(int32)}, true
	})
	h.OnAdd(int32(2), false)
	prov.SetSeries(key.String(), scripted.Constant(750))
	st := s.SourceAutoscaler.Cycle(context.Background())
	if st.Written != 1 {
		t.Fatalf("cycle: %+v", st)
	}
	if got, _ := srcs.Get(key); got.GetVReplicas() != 8 {
		t.Errorf("vreplicas %d; want ceil(750/100) = 8", got.GetVReplicas())
	}
	select {
	case e := <-rec.Events:
		want := "Normal VReplicasScaled 2 -> 8 vreplicas (panic): signal 750"
		if !strings.HasPrefix(e, want) {
			t.Errorf("event %q; want it to begin with %q", e, want)
		}
	default:
		t.Error("no Event")
	}
	if e, ok := s.SourceAutoscaler.Explain(key); !ok || e.Decision.Desired != 8 {
		t.Errorf("Explain: %+v %v", e, ok)
	}
	h.OnDelete(int32(8))
	if _, ok := s.SourceAutoscaler.Explain(key); ok {
		t.Error("a deleted source is still known")
	}
}

// TestSourceIncreaseTriggersPodAutoscaler: with a pod autoscaler whose
// refresh period is an hour, a source autoscaler increase that needs pods
// grows the StatefulSet at once (the pod autoscaler's Trigger), not an
// hour later.
func TestSourceIncreaseTriggersPodAutoscaler(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	prov := scripted.New("lag", clk.Now)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	var sources *memcluster.Sources
	s, c, srcs, _ := start(t, true, func(_ *memcluster.Options, o *embedkit.Options) {
		o.AutoscalerConfig = func() *config.AutoscalerConfig {
			cfg := config.DefaultAutoscalerConfig()
			cfg.MaxReplicas, cfg.RefreshPeriod = 3, time.Hour
			return cfg
		}
		o.MeterProvider = mp
		o.SourceAutoscaler = &embedkit.SourceAutoscalerOptions{
			Providers: []signal.Provider{prov}, Clock: clk,
			Writer: sourceautoscaler.WriterFunc(func(_ context.Context, k types.NamespacedName, n int32) error {
				_, err := sources.Update(k, n)
				return err
			}),
		}
	})
	sources = srcs
	mustCreate(t, srcs, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Autoscaler.Run(ctx)
	// Wait for the pod autoscaler's first cycle (it records its desired
	// size): from then on only a Trigger makes it run within the hour.
	waitFor(t, func() bool {
		var rm metricdata.ResourceMetrics
		_ = reader.Collect(ctx, &rm)
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name == autoscaler.MetricDesiredReplicas {
					return true
				}
			}
		}
		return false
	})
	specReplicas := func() int32 {
		set, err := c.StatefulSet()
		if err != nil || set.Spec.Replicas == nil {
			return -1
		}
		return *set.Spec.Replicas
	}
	if got := specReplicas(); got != 2 {
		t.Fatalf("%d replicas before the burst; want 2", got)
	}
	_ = s.SourceAutoscaler.Upsert(sourceautoscaler.Source{Key: key, VReplicas: 2})
	prov.SetSeries(key.String(), scripted.Constant(600))
	if st := s.SourceAutoscaler.Cycle(ctx); st.Written != 1 {
		t.Fatalf("cycle: %+v", st)
	}
	// 6 vreplicas on pods of capacity 2: 3 pods, at once.
	waitFor(t, func() bool { return specReplicas() == 3 })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
