//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/internal/testkit/promtest"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/prometheus"
	"github.com/vsched/vsched/sourceautoscaler/signal/providertest"
)

// sourceLagMetric is the gauge of per-source lag the test exporter serves
// and the source autoscaler's scenarios query by its "source" label.
const sourceLagMetric = "vsched_e2e_source_lag"

// TestPrometheusSignal checks, without a control plane, the pieces the
// source autoscaler's scenarios (issue 22 item 8) run on: a real
// Prometheus scraping the test exporter of per-source lag, read through
// the Prometheus provider. A burst reaches the provider once Prometheus has
// scraped it; a Prometheus outage fails the round (the autoscaler's
// fallback), and the server comes back with its data; an exporter outage
// leaves every source unknown, never zero.
//
// The scenarios should know: a restarted Prometheus answers from its TSDB
// before it scrapes again (up to 5s), and a series it has not scraped since
// lingers for the lookback delta (promtest.Options.LookbackDelta).
func TestPrometheusSignal(t *testing.T) {
	exp := promtest.NewExporter(sourceLagMetric, "source")
	defer exp.Close()
	srv := promtest.Run(t, promtest.Options{Targets: []string{exp.Addr()}, ScrapeInterval: 250 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := prometheus.New(prometheus.Config{Address: srv.URL, Query: "max by (source) (" + sourceLagMetric + ")", Label: "source"})
	if err != nil {
		t.Fatal(err)
	}
	var targets []signal.Target
	for i := range 3 {
		key := types.NamespacedName{Namespace: sourcesNS, Name: fmt.Sprintf("s%d", i)}
		targets = append(targets, signal.Target{Key: key})
		exp.Set(key.String(), float64(10*i))
	}
	waitLag := func(i int, v float64) {
		t.Helper()
		if err := srv.WaitValue(ctx, sourceLagMetric, "source", targets[i].Key.String(), v); err != nil {
			t.Fatal(err)
		}
	}
	values := func(got []signal.Sample) []float64 {
		var out []float64
		for _, s := range got {
			out = append(out, map[bool]float64{true: s.Value, false: -1}[s.Known])
		}
		return out
	}
	waitLag(2, 20)
	if diff := cmp.Diff([]float64{0, 10, 20}, values(providertest.Fetch(t, p, targets))); diff != "" {
		t.Errorf("steady lag (-want +got, -1 unknown):\n%s", diff)
	}

	burst := time.Now()
	exp.Set(targets[1].Key.String(), 500)
	waitLag(1, 500)
	t.Logf("a burst reached Prometheus %v after the exporter's change (scrape interval 250ms)", time.Since(burst).Round(time.Millisecond))
	if diff := cmp.Diff([]float64{0, 500, 20}, values(providertest.Fetch(t, p, targets))); diff != "" {
		t.Errorf("after the burst (-want +got, -1 unknown):\n%s", diff)
	}

	srv.Stop()
	providertest.FailedRound(t, p, targets[0], time.Second, 5*time.Second, "connection refused")
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := exp.WaitScrapes(ctx, 2); err != nil {
		t.Fatal(err)
	}
	waitLag(1, 500)
	if diff := cmp.Diff([]float64{0, 500, 20}, values(providertest.Fetch(t, p, targets))); diff != "" {
		t.Errorf("after the Prometheus outage (-want +got, -1 unknown):\n%s", diff)
	}

	exp.Close()
	if _, err := srv.WaitSeries(ctx, sourceLagMetric, 0); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{-1, -1, -1}, values(providertest.Fetch(t, p, targets))); diff != "" {
		t.Errorf("after the exporter's outage (-want +got, -1 unknown):\n%s", diff)
	}
}
