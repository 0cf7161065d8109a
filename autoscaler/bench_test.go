package autoscaler

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/statefulset"
)

// BenchmarkAutoscalerDecision measures one autoscaler cycle on W2 (6,000
// pods, 10,000 sources) with the pods full and 1,000 vreplicas pending
// over 50 new sources. The autoscaler recommends only, so that every
// iteration makes the same decision (the write itself is one scale
// subresource update). Run with:
//
//	go test ./autoscaler -run '^$' -bench AutoscalerDecision -benchtime 20x
//
// ms/decision is the figure to read; the bound is 50 ms.
func BenchmarkAutoscalerDecision(b *testing.B) {
	ctx := quiet()
	for _, prof := range []struct {
		name string
		data map[string]string
	}{{"default", nil}, {"kafkaHA", asKafkaHA}} {
		b.Run("W2/"+prof.name, func(b *testing.B) {
			a, pending := autoscalerBenchSetup(b, ctx, prof.data, 10000)
			last, total := reconcileN(ctx, b, a)
			if last.Pending != pending || last.Target <= last.Current {
				b.Fatalf("decision = %+v, want a scale-up for %d pending", last, pending)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/decision")
			b.ReportMetric(float64(last.Simulations), "simulations")
			b.ReportMetric(float64(last.Target-last.Current), "pods-added")
		})
	}
}

// reconcileN runs b.N cycles of a, timing only the cycles, and returns the
// last decision and the time spent.
func reconcileN(ctx context.Context, b *testing.B, a *Autoscaler) (last Report, total time.Duration) {
	// The setup's garbage is not the decision's.
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		d, err := a.Reconcile(ctx)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		last = d
	}
	b.StopTimer()
	return last, total
}

// BenchmarkAutoscalerOverMax is BenchmarkAutoscalerDecision with
// max-replicas 3,000 on the 6,000 full pods: the cycle simulates the
// largest size allowed to report what it would leave pending per source.
//
//	go test ./autoscaler -run '^$' -bench AutoscalerOverMax -benchtime 5x
func BenchmarkAutoscalerOverMax(b *testing.B) {
	ctx := quiet()
	a, _ := autoscalerBenchSetup(b, ctx, nil, 3000)
	last, total := reconcileN(ctx, b, a)
	if len(last.PendingAtMax) == 0 || len(last.Draining) != 0 {
		b.Fatalf("decision = %+v, want pending reported at max-replicas and nothing drained", last)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/decision")
	b.ReportMetric(float64(last.Simulations), "simulations")
	b.ReportMetric(float64(last.Unplaceable), "pending-at-max")
}

// benchW2 is statefulset's workload W2 (docs/performance.md): 3 zones of 4
// nodes, 6,000 pods of capacity 20, 10,000 sources of 1..20 vreplicas
// (fixed seed).
var benchW2 = struct{ zones, nodesPerZone, pods, sources int }{3, 4, 6000, 10000}

const benchCapacity = 20

// benchWorld is W2 with every source placed and committed, its scheduler
// started as a controller restart would.
type benchWorld struct {
	c   *memcluster.Cluster
	src *memcluster.Sources
	s   *statefulset.Scheduler
	// listed is what the lister returns; it is filled once the sources
	// are placed, so that the list costs what an informer's does.
	listed []vsched.VPod
}

func newBenchWorld(b *testing.B, ctx context.Context, profiles config.ProfilesSource) *benchWorld {
	b.Helper()
	zones := make([]string, benchW2.zones)
	for i := range zones {
		zones[i] = fmt.Sprintf("zone-%d", i)
	}
	c, err := memcluster.New(ctx, memcluster.Options{Zones: zones, NodesPerZone: benchW2.nodesPerZone,
		Replicas: int32(benchW2.pods), Capacity: benchCapacity})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	w := &benchWorld{c: c, src: memcluster.NewSources()}
	w.s, err = statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: benchCapacity,
		Lister:       func() ([]vsched.VPod, error) { return slices.Clone(w.listed), nil },
		ListerSynced: func() bool { return true }, // the slice is the whole truth
		Informers:    statefulset.InformersFromFactory(c.InformerFactory()), Profiles: profiles, AlwaysLeader: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	// Pods, not a Snapshot: it costs the pods alone, polled.
	err = c.WaitFor(ctx, func() bool {
		n := 0
		for _, p := range w.s.Pods() {
			if p.Candidate {
				n++
			}
		}
		return n == benchW2.pods
	})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < benchW2.sources; i++ {
		w.add(b, ctx, fmt.Sprintf("src-%05d", i), int32(1+rng.Intn(20)))
	}
	return w
}

// add creates a source, schedules it and commits the result.
func (w *benchWorld) add(b *testing.B, ctx context.Context, name string, vreplicas int32) {
	k := types.NamespacedName{Namespace: "ns", Name: name}
	if _, err := w.src.Create(k, vreplicas); err != nil {
		b.Fatal(err)
	}
	if _, err := w.src.Reconcile(ctx, w.s, k); err != nil && vsched.PendingCount(err) == 0 {
		b.Fatal(err)
	}
	v, err := w.src.Get(k)
	if err != nil {
		b.Fatal(err)
	}
	w.s.Observe(v)
}

func (w *benchWorld) list(b *testing.B) {
	var err error
	if w.listed, err = w.src.List(); err != nil {
		b.Fatal(err)
	}
}

func autoscalerBenchSetup(b *testing.B, ctx context.Context, schedData map[string]string, maxReplicas int32) (*Autoscaler, int64) {
	b.Helper()
	profiles, err := config.ProfilesFromConfigMaps(ctx, inTree, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	if schedData != nil {
		profiles = profilesFromData(b, schedData, nil)
	}
	w := newBenchWorld(b, ctx, profiles)
	// Fill every pod, then ask for 1,000 more vreplicas.
	free := w.s.Snapshot().FreeCapacity()
	for i := 0; free > 0; i++ {
		n := int32(min(free, 20))
		w.add(b, ctx, fmt.Sprintf("fill-%05d", i), n)
		free -= int64(n)
	}
	for i := 0; i < 50; i++ {
		w.add(b, ctx, fmt.Sprintf("burst-%03d", i), 20)
	}
	w.list(b)
	_, pending := w.s.Snapshot().Pending()
	if pending != 1000 {
		b.Fatalf("pending = %d, want 1000", pending)
	}
	cfg := config.DefaultAutoscalerConfig()
	cfg.MaxReplicas = maxReplicas
	// Every iteration must decide the same thing: the scheduler's
	// informers would show a written size to the next one.
	cfg.RecommendOnly = true
	a, err := New(ctx, Options{Scheduler: w.s, Client: w.c.Client(), Config: func() *config.AutoscalerConfig { return cfg },
		Cache: CacheFromFactory(w.c.InformerFactory())})
	if err != nil {
		b.Fatal(err)
	}
	return a, pending
}
