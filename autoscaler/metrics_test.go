package autoscaler

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

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
