package sourceautoscaler

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
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
		a.mu.Lock()
		defer a.mu.Unlock()
		for i := range a.slots {
			s := &a.slots[i]
			if !s.alive || s.lastAt == 0 {
				continue
			}
			attrs := metric.WithAttributes(attribute.String("k8s.namespace.name", s.key.Namespace), attribute.String("vsched.source.name", s.key.Name))
			if s.last.Known {
				o.ObserveFloat64(sig, s.last.Signal, attrs)
			}
			o.ObserveInt64(desired, int64(s.last.Desired), attrs)
			o.ObserveInt64(actual, int64(s.last.Current), attrs)
			o.ObserveInt64(mode, 1, attrs, metric.WithAttributes(attribute.String("mode", s.last.Mode.String())))
		}
		return nil
	}, sig, desired, actual, mode)
	return err
}
