package monitoring

import (
	"context"

	"go.opentelemetry.io/otel/metric"
)

// recordingProvider hands out meters that remember the synchronous
// instruments created through them, so that ExportedMetrics can record on
// each; observable instruments report through their own callbacks.
type recordingProvider struct {
	metric.MeterProvider
	meters []*recordingMeter
}

func (p *recordingProvider) Meter(name string, opts ...metric.MeterOption) metric.Meter {
	m := &recordingMeter{Meter: p.MeterProvider.Meter(name, opts...)}
	p.meters = append(p.meters, m)
	return m
}

// measureAll records 1 on every instrument the meters created.
func (p *recordingProvider) measureAll(ctx context.Context) {
	for _, m := range p.meters {
		for _, f := range m.measure {
			f(ctx)
		}
	}
}

type recordingMeter struct {
	metric.Meter
	measure []func(context.Context)
}

// keep remembers how to record on an instrument created without error.
func (m *recordingMeter) keep(err error, measure func(context.Context)) {
	if err == nil {
		m.measure = append(m.measure, measure)
	}
}

func (m *recordingMeter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	c, err := m.Meter.Int64Counter(name, opts...)
	m.keep(err, func(ctx context.Context) { c.Add(ctx, 1) })
	return c, err
}

func (m *recordingMeter) Float64Counter(name string, opts ...metric.Float64CounterOption) (metric.Float64Counter, error) {
	c, err := m.Meter.Float64Counter(name, opts...)
	m.keep(err, func(ctx context.Context) { c.Add(ctx, 1) })
	return c, err
}

func (m *recordingMeter) Int64UpDownCounter(name string, opts ...metric.Int64UpDownCounterOption) (metric.Int64UpDownCounter, error) {
	c, err := m.Meter.Int64UpDownCounter(name, opts...)
	m.keep(err, func(ctx context.Context) { c.Add(ctx, 1) })
	return c, err
}

func (m *recordingMeter) Float64UpDownCounter(name string, opts ...metric.Float64UpDownCounterOption) (metric.Float64UpDownCounter, error) {
	c, err := m.Meter.Float64UpDownCounter(name, opts...)
	m.keep(err, func(ctx context.Context) { c.Add(ctx, 1) })
	return c, err
}

func (m *recordingMeter) Int64Histogram(name string, opts ...metric.Int64HistogramOption) (metric.Int64Histogram, error) {
	h, err := m.Meter.Int64Histogram(name, opts...)
	m.keep(err, func(ctx context.Context) { h.Record(ctx, 1) })
	return h, err
}

func (m *recordingMeter) Float64Histogram(name string, opts ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	h, err := m.Meter.Float64Histogram(name, opts...)
	m.keep(err, func(ctx context.Context) { h.Record(ctx, 1) })
	return h, err
}

func (m *recordingMeter) Int64Gauge(name string, opts ...metric.Int64GaugeOption) (metric.Int64Gauge, error) {
	g, err := m.Meter.Int64Gauge(name, opts...)
	m.keep(err, func(ctx context.Context) { g.Record(ctx, 1) })
	return g, err
}

func (m *recordingMeter) Float64Gauge(name string, opts ...metric.Float64GaugeOption) (metric.Float64Gauge, error) {
	g, err := m.Meter.Float64Gauge(name, opts...)
	m.keep(err, func(ctx context.Context) { g.Record(ctx, 1) })
	return g, err
}
