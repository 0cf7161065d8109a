package autoscaler

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"k8s.io/apimachinery/pkg/types"
)

// The autoscaler's instruments, in the OpenTelemetry meter named
// MeterName. Every measurement carries the StatefulSet's namespace and
// name (k8s.namespace.name, k8s.statefulset.name).
const (
	// MeterName keeps the name the instruments had when the autoscaler was
	// part of package statefulset, so that dashboards and alerts selecting
	// on the instrumentation scope still match.
	MeterName = "github.com/vsched/vsched/statefulset"

	MetricDesiredReplicas  = "vsched.autoscaler.desired_replicas"
	MetricCurrentReplicas  = "vsched.autoscaler.current_replicas"
	MetricPendingVReplicas = "vsched.autoscaler.pending_vreplicas"
	MetricFreeCapacity     = "vsched.autoscaler.free_capacity"
	MetricScaleChanges     = "vsched.autoscaler.scale_changes"
	// MetricHotPods and MetricShedVReplicas: issue 23's hot pods
	// (docs/autoscaler.md#hot-pods).
	MetricHotPods       = "vsched.autoscaler.hot_pods"
	MetricShedVReplicas = "vsched.autoscaler.shed_vreplicas"
)

func otelMeterProvider() metric.MeterProvider { return otel.GetMeterProvider() }

type autoscalerMetrics struct {
	desired, current, pending, free metric.Int64Gauge
	changes                         metric.Int64Counter
	hotPods                         metric.Int64Gauge
	shedVReplicas                   metric.Int64Counter
	attrs                           metric.MeasurementOption
}

func newAutoscalerMetrics(mp metric.MeterProvider, key types.NamespacedName) (*autoscalerMetrics, error) {
	meter := mp.Meter(MeterName)
	m := &autoscalerMetrics{attrs: metric.WithAttributes(
		attribute.String("k8s.namespace.name", key.Namespace),
		attribute.String("k8s.statefulset.name", key.Name),
	)}
	var err error
	gauge := func(name, desc, unit string) metric.Int64Gauge {
		if err != nil {
			return nil
		}
		var g metric.Int64Gauge
		g, err = meter.Int64Gauge(name, metric.WithDescription(desc), metric.WithUnit(unit))
		return g
	}
	m.desired = gauge(MetricDesiredReplicas, "Replicas the autoscaler wants for the StatefulSet.", "{pod}")
	m.current = gauge(MetricCurrentReplicas, "The StatefulSet's spec.replicas.", "{pod}")
	m.pending = gauge(MetricPendingVReplicas, "Vreplicas waiting for a pod.", "{vreplica}")
	m.free = gauge(MetricFreeCapacity, "Free capacity of the pods the StatefulSet's spec pays for.", "{vreplica}")
	m.hotPods = gauge(MetricHotPods, "Pods whose measured memory or CPU is over their hot-pod limit, in the grace or shedding.", "{pod}")
	if err != nil {
		return nil, err
	}
	m.changes, err = meter.Int64Counter(MetricScaleChanges, metric.WithDescription("Changes of the StatefulSet's size made by the autoscaler."), metric.WithUnit("{change}"))
	if err != nil {
		return nil, err
	}
	m.shedVReplicas, err = meter.Int64Counter(MetricShedVReplicas, metric.WithDescription("Vreplicas hot pods were planned to shed."), metric.WithUnit("{vreplica}"))
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (m *autoscalerMetrics) record(ctx context.Context, d Report) {
	m.desired.Record(ctx, int64(d.Desired), m.attrs)
	m.current.Record(ctx, int64(d.Current), m.attrs)
	m.pending.Record(ctx, d.Pending, m.attrs)
	m.free.Record(ctx, d.FreeCapacity, m.attrs)
}

func (m *autoscalerMetrics) change(ctx context.Context, direction string) {
	m.changes.Add(ctx, 1, m.attrs, metric.WithAttributes(attribute.String("direction", direction)))
}

func (m *autoscalerMetrics) hot(ctx context.Context, pods int) {
	m.hotPods.Record(ctx, int64(pods), m.attrs)
}

func (m *autoscalerMetrics) shed(ctx context.Context, vreplicas int64) {
	m.shedVReplicas.Add(ctx, vreplicas, m.attrs)
}
