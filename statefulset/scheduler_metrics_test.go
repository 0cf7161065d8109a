package statefulset_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// collect flattens the scheduler's metrics into "name{attr=value,...}" =>
// value (a histogram's count), leaving out the StatefulSet's attributes.
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	name := func(m string, set attribute.Set) string {
		var kv []string
		for _, a := range set.ToSlice() {
			if !strings.HasPrefix(string(a.Key), "k8s.") {
				kv = append(kv, fmt.Sprintf("%s=%s", a.Key, a.Value.Emit()))
			}
		}
		sort.Strings(kv)
		return m + "{" + strings.Join(kv, ",") + "}"
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if !strings.HasPrefix(m.Name, "vsched.scheduler.") {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[name(m.Name, p.Attributes)] = float64(p.Value)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[name(m.Name, p.Attributes)] = float64(p.Value)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					out[name(m.Name, p.Attributes)] = p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[name(m.Name, p.Attributes)] = float64(p.Count)
				}
			}
		}
	}
	return out
}

// TestSchedulerMetrics: decisions by outcome, pending vreplicas, moves off
// a pod drained because its node was lost, and outstanding reservations,
// on three pods of capacity 2 filled lowest ordinal first.
func TestSchedulerMetrics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 3, Capacity: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	lowestOrdinal := map[string]string{"predicates": `[{"Name": "PodFitsResources"}]`, "priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`}
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), &corev1.ConfigMap{Data: lowestOrdinal}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sched, reader, sources := meteredScheduler(ctx, t, c, profiles)
	key := types.NamespacedName{Namespace: "ns", Name: "src"}
	step := func(vreplicas int32) {
		t.Helper()
		if _, err := sources.Update(key, vreplicas); err != nil {
			t.Fatal(err)
		}
		if _, err := sources.Reconcile(ctx, sched, key); err != nil && vreplicas <= 4 {
			t.Fatal(err)
		}
	}
	if _, err := sources.Create(key, 4); err != nil {
		t.Fatal(err)
	}
	step(4) // pods 0 and 1, 2 each
	// Pod 0's node is lost: the evictor drains it, and the next decision
	// moves its 2 vreplicas to pod 2.
	if err := c.AnnotatePod(0, c.DrainingAnnotation(), "unavailable"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	step(4)
	step(6) // pods 1 and 2 are full: 2 pending, none on the drained pod
	got := collect(t, reader)
	want := map[string]float64{
		"vsched.scheduler.decisions{outcome=placed}":          2,
		"vsched.scheduler.decisions{outcome=partial}":         1,
		"vsched.scheduler.schedule.duration{outcome=placed}":  2,
		"vsched.scheduler.schedule.duration{outcome=partial}": 1,
		"vsched.scheduler.moved_vreplicas{reason=lost_node}":  2,
		"vsched.scheduler.pending_vreplicas{}":                2,
		"vsched.scheduler.unavailable_vreplicas{}":            0,
		"vsched.scheduler.reservations{}":                     0, // every decision was written and seen
		"vsched.scheduler.reservation.oldest_age{}":           0,
		"vsched.scheduler.statefulset.ready{}":                1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}

	// Pod 0 is back: the pending 2 go there, in a decision not written.
	if err := c.AnnotatePod(0, c.DrainingAnnotation(), "false"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := sources.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sched.Schedule(ctx, v); err != nil {
		t.Fatal(err)
	}
	c.Clock().Step(30 * time.Second)
	got = collect(t, reader)
	for name, want := range map[string]float64{
		"vsched.scheduler.decisions{outcome=placed}": 3,
		"vsched.scheduler.pending_vreplicas{}":       0,
		"vsched.scheduler.reservations{}":            1,
		"vsched.scheduler.reservation.oldest_age{}":  30,
	} {
		if got[name] != want {
			t.Errorf("%s = %v; want %v", name, got[name], want)
		}
	}

	// Pod 1's node is lost: its 2 vreplicas are placed but run nothing.
	pod, err := c.Pod(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.FailNode(pod.Spec.NodeName); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, reader)["vsched.scheduler.unavailable_vreplicas{}"]; got != 2 {
		t.Errorf("unavailable_vreplicas = %v after pod 1's node was lost; want its 2", got)
	}
}

// TestStatefulSetReadyMetric: the readiness gauge is 0 from the moment the
// scheduler sees its StatefulSet deleted until it is back, and the
// decisions refused meanwhile count as not_ready.
func TestStatefulSetReadyMetric(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a"}, Replicas: 1, Capacity: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sched, reader, sources := meteredScheduler(ctx, t, c, profiles)
	key := types.NamespacedName{Namespace: "ns", Name: "src"}
	if _, err := sources.Create(key, 1); err != nil {
		t.Fatal(err)
	}
	const ready = "vsched.scheduler.statefulset.ready{}"
	const refused = "vsched.scheduler.decisions{outcome=not_ready}"
	for _, step := range []struct {
		name         string
		change       func() error
		ready, calls float64
	}{
		{"present", func() error { return nil }, 1, 0},
		{"deleted", func() error { return c.DeleteStatefulSet(true) }, 0, 1},
		{"back", func() error { return c.CreateStatefulSet(1) }, 1, 1},
	} {
		if err := step.change(); err != nil {
			t.Fatal(err)
		}
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		_, _ = sources.Reconcile(ctx, sched, key)
		got := collect(t, reader)
		if got[ready] != step.ready || got[refused] != step.calls {
			t.Errorf("%s: %s = %v, %s = %v; want %v and %v", step.name, ready, got[ready], refused, got[refused], step.ready, step.calls)
		}
	}
}

// meteredScheduler starts c with a scheduler whose metrics go to the reader
// returned, over the sources returned.
func meteredScheduler(ctx context.Context, t *testing.T, c *memcluster.Cluster, profiles config.ProfilesSource) (*statefulset.Scheduler, *sdkmetric.ManualReader, *memcluster.Sources) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	sources := memcluster.NewSources()
	sched, err := statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: c.Capacity(),
		Lister: sources.List, ListerSynced: sources.HasSynced, Informers: statefulset.InformersFromFactory(c.InformerFactory()),
		Profiles: profiles, AlwaysLeader: true, Clock: c.Clock(),
		MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Close)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return sched, reader, sources
}
