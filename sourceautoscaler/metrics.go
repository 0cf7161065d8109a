package sourceautoscaler

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"k8s.io/apimachinery/pkg/types"
)

// The source autoscaler's instruments, in the meter named MeterName. Each
// is observed at collection time from every source's last decision (no
// allocation in the cycle), with the source's namespace and name
// (k8s.namespace.name, vsched.source.name).
const (
	MeterName = "github.com/vsched/vsched/sourceautoscaler"

	// MetricSignal is the source's demand as last measured.
	MetricSignal = "vsched.source_autoscaler.signal"
	// MetricDesired is the vreplicas decided.
	MetricDesired = "vsched.source_autoscaler.desired_vreplicas"
	// MetricActual is the vreplicas the source had.
	MetricActual = "vsched.source_autoscaler.vreplicas"
	// MetricMode is 1 for the mode of the last decision (attribute mode:
	// stable, panic, capped, fallback, paused).
	MetricMode = "vsched.source_autoscaler.mode"
)

func (a *Autoscaler) registerMetrics(mp metric.MeterProvider) error {
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	meter := mp.Meter(MeterName)
	sig, err := meter.Float64ObservableGauge(MetricSignal, metric.WithDescription("The source's demand signal as last measured (lag, or events per second)."))
	if err != nil {
		return err
	}
	desired, err := meter.Int64ObservableGauge(MetricDesired, metric.WithDescription("Vreplicas the source autoscaler decided."), metric.WithUnit("{vreplica}"))
	if err != nil {
		return err
	}
	actual, err := meter.Int64ObservableGauge(MetricActual, metric.WithDescription("Vreplicas the source had when decided."), metric.WithUnit("{vreplica}"))
	if err != nil {
		return err
	}
	mode, err := meter.Int64ObservableGauge(MetricMode, metric.WithDescription("1 for the mode of the source's last decision."))
	if err != nil {
		return err
	}
	_, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		for _, r := range a.metricRows() {
			attrs := metric.WithAttributes(attribute.String("k8s.namespace.name", r.key.Namespace), attribute.String("vsched.source.name", r.key.Name))
			if r.known {
				o.ObserveFloat64(sig, r.signal, attrs)
			}
			o.ObserveInt64(desired, int64(r.desired), attrs)
			o.ObserveInt64(actual, int64(r.current), attrs)
			o.ObserveInt64(mode, 1, attrs, metric.WithAttributes(attribute.String("mode", r.mode)))
		}
		return nil
	}, sig, desired, actual, mode)
	return err
}

// metricRow is what a scrape reports of one source.
type metricRow struct {
	key              types.NamespacedName
	known            bool
	signal           float64
	desired, current int32
	mode             string
}

// metricRows copies, under the lock, what a scrape reports, so that the
// scrape observes (and the exporter encodes) with the lock released:
// Upsert, Delete and the cycle wait for a copy of the sources, not for the
// whole scrape.
func (a *Autoscaler) metricRows() []metricRow {
	a.mu.Lock()
	defer a.mu.Unlock()
	rows := make([]metricRow, 0, len(a.slots))
	for i := range a.slots {
		s := &a.slots[i]
		if !s.alive || s.lastAt == 0 {
			continue
		}
		rows = append(rows, metricRow{key: s.key, known: s.last.Known, signal: s.last.Signal, desired: s.last.Desired, current: s.last.Current, mode: s.last.Mode.String()})
	}
	return rows
}
