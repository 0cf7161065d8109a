package sourceautoscaler

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

// capturingProvider hands out meters that keep the callback registered, so
// a test can run a collection itself and look at the autoscaler while it
// runs.
type capturingProvider struct {
	noop.MeterProvider
	cb metric.Callback
}

func (p *capturingProvider) Meter(string, ...metric.MeterOption) metric.Meter {
	return &capturingMeter{p: p}
}

type capturingMeter struct {
	noop.Meter
	p *capturingProvider
}

func (m *capturingMeter) RegisterCallback(cb metric.Callback, _ ...metric.Observable) (metric.Registration, error) {
	m.p.cb = cb
	return noop.Registration{}, nil
}

// lockProbe is an Observer that records whether the autoscaler's lock was
// held while a value was observed.
type lockProbe struct {
	embedded.Observer
	a              *Autoscaler
	observed, held int
}

func (o *lockProbe) probe() {
	o.observed++
	if o.a.mu.TryLock() {
		o.a.mu.Unlock()
	} else {
		o.held++
	}
}

func (o *lockProbe) ObserveFloat64(metric.Float64Observable, float64, ...metric.ObserveOption) {
	o.probe()
}

func (o *lockProbe) ObserveInt64(metric.Int64Observable, int64, ...metric.ObserveOption) {
	o.probe()
}

// TestMetricsCollectionDoesNotHoldTheLock: a scrape observes every
// source; with 10,000 sources and a slow exporter, doing that under the
// autoscaler's lock would stall Upsert, Delete and the cycle for the whole
// scrape. The callback copies what it reports under the lock and observes
// after releasing it.
func TestMetricsCollectionDoesNotHoldTheLock(t *testing.T) {
	mp := &capturingProvider{}
	f := newFixture(t, 1, func(o *Options) { o.MeterProvider = mp })
	for i := 0; i < 3; i++ {
		f.prov[0].SetSeries(key(i).String(), scripted.Constant(950))
		if err := f.a.Upsert(Source{Key: key(i), VReplicas: 2}); err != nil {
			t.Fatal(err)
		}
	}
	f.a.Cycle(context.Background())
	if mp.cb == nil {
		t.Fatal("no metrics callback registered")
	}
	o := &lockProbe{a: f.a}
	if err := mp.cb(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if o.observed != 12 || o.held != 0 {
		t.Errorf("observed %d values, %d of them with the lock held; want 12 (4 per source), none held", o.observed, o.held)
	}
}
