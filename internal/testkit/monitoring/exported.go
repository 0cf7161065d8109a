package monitoring

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/sourceautoscaler"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
	"github.com/vsched/vsched/statefulset"
)

// ExportedMetrics returns the name of every series vsched's scheduler, its
// autoscaler and the source autoscaler export through OpenTelemetry's Prometheus exporter (the one
// the sample controller serves), sorted; a histogram gives its _bucket,
// _sum and _count series. It builds a real scheduler and autoscaler on an
// in-memory cluster, and a source autoscaler that decides one source, with
// a meter provider that remembers every instrument they create, records one
// measurement on each (a counter appears only once it has counted; the
// source autoscaler's gauges observe its last decisions), and gathers the exporter's registry: a metric
// added, renamed or given another unit in the code changes the answer.
func ExportedMetrics(ctx context.Context) ([]string, error) {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer func() { _ = provider.Shutdown(context.Background()) }()
	rec := &recordingProvider{MeterProvider: provider}
	if err := buildScheduler(ctx, rec); err != nil {
		return nil, err
	}
	if err := decideOneSource(ctx, rec); err != nil {
		return nil, err
	}
	rec.measureAll(ctx)
	families, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range families {
		names = append(names, seriesNames(f)...)
	}
	sort.Strings(names)
	return names, nil
}

// buildScheduler creates the scheduler and the autoscaler of an in-memory
// cluster, which register their instruments with mp.
func buildScheduler(ctx context.Context, mp metric.MeterProvider) error {
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a"}, Replicas: 1, Capacity: 1})
	if err != nil {
		return err
	}
	defer c.Shutdown()
	sources := memcluster.NewSources()
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		return err
	}
	sched, err := statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: c.Capacity(), AlwaysLeader: true, Profiles: profiles,
		Lister: sources.List, ListerSynced: sources.HasSynced, Clock: c.Clock(),
		Informers: statefulset.InformersFromFactory(c.InformerFactory()), MeterProvider: mp,
	})
	if err != nil {
		return fmt.Errorf("the scheduler: %w", err)
	}
	if _, err := autoscaler.New(ctx, autoscaler.Options{Scheduler: sched, Client: c.Client(), Clock: c.Clock(), MeterProvider: mp}); err != nil {
		return fmt.Errorf("the autoscaler: %w", err)
	}
	return nil
}

// decideOneSource runs a cycle of a source autoscaler that registers its
// instruments with mp, on one source whose demand a scripted provider
// gives: its gauges observe only the sources it has decided.
func decideOneSource(ctx context.Context, mp metric.MeterProvider) error {
	clk := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	lag := scripted.New("lag", clk.Now)
	a, err := sourceautoscaler.New(sourceautoscaler.Options{
		Providers: []signal.Provider{lag},
		Writer: sourceautoscaler.WriterFunc(func(context.Context, types.NamespacedName, int32) error {
			return nil
		}),
		Clock:         clk,
		MeterProvider: mp,
	})
	if err != nil {
		return fmt.Errorf("the source autoscaler: %w", err)
	}
	key := types.NamespacedName{Namespace: "monitoring", Name: "source"}
	lag.SetSeries(key.String(), scripted.Constant(1))
	if err := a.Upsert(sourceautoscaler.Source{Key: key, VReplicas: 1}); err != nil {
		return fmt.Errorf("the source autoscaler: %w", err)
	}
	if st := a.Cycle(ctx); st.Due != 1 {
		return fmt.Errorf("the source autoscaler decided %d sources; want 1", st.Due)
	}
	return nil
}

// seriesNames are the names of a family's series in the text format.
func seriesNames(f *dto.MetricFamily) []string {
	name := f.GetName()
	switch f.GetType() {
	case dto.MetricType_HISTOGRAM:
		return []string{name + "_bucket", name + "_count", name + "_sum"}
	case dto.MetricType_SUMMARY:
		return []string{name, name + "_count", name + "_sum"}
	}
	return []string{name}
}

// IsVschedMetric tells a name of vsched's own from the exporter's
// (target_info and the like).
func IsVschedMetric(name string) bool { return strings.HasPrefix(name, "vsched_") }
