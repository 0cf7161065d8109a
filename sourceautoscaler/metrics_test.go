package sourceautoscaler

import (
	"context"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

func TestMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	f := newFixture(t, 1, func(o *Options) { o.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)) })
	f.prov[0].SetSeries("ns/s0000", scripted.Constant(950))
	_ = f.a.Upsert(Source{Key: key(0), VReplicas: 2})
	f.a.Cycle(context.Background())
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Gauge[int64]:
				for _, dp := range data.DataPoints {
					mode, _ := dp.Attributes.Value("mode")
					name, _ := dp.Attributes.Value("vsched.source.name")
					got = append(got, m.Name+" "+name.AsString()+" "+mode.AsString()+" "+strconv.FormatInt(dp.Value, 10))
				}
			case metricdata.Gauge[float64]:
				got = append(got, m.Name+" "+strconv.FormatFloat(data.DataPoints[0].Value, 'f', -1, 64))
			}
		}
	}
	sort.Strings(got)
	want := []string{
		"vsched.source_autoscaler.desired_vreplicas s0000  10",
		"vsched.source_autoscaler.mode s0000 panic 1",
		"vsched.source_autoscaler.signal 950",
		"vsched.source_autoscaler.vreplicas s0000  2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}
