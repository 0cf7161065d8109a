package statefulset

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/state"
)

// BenchmarkAutoscalerDecision measures one autoscaler cycle on W2 (6,000
// pods, 10,000 sources) with the pods full and 1,000 vreplicas pending
// over 50 new sources. The autoscaler recommends only, so that every
// iteration makes the same decision (the write itself is one scale
// subresource update). Run with:
//
//	go test ./statefulset -run '^$' -bench AutoscalerDecision -benchtime 20x
//
// ms/decision is the figure to read; the bound is 50 ms.
func BenchmarkAutoscalerDecision(b *testing.B) {
	ctx := benchCtx()
	for _, prof := range []struct {
		name string
		data map[string]string
	}{{"default", nil}, {"kafkaHA", haScheduler}} {
		b.Run("W2/"+prof.name, func(b *testing.B) {
			a, pending := autoscalerBenchSetup(b, ctx, w2, prof.data, 10000)
			var total time.Duration
			var last Decision
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
			if last.Pending != pending || last.Target <= last.Current {
				b.Fatalf("decision = %+v, want a scale-up for %d pending", last, pending)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/decision")
			b.ReportMetric(float64(last.Simulations), "simulations")
			b.ReportMetric(float64(last.Target-last.Current), "pods-added")
		})
	}
}

// BenchmarkAutoscalerOverMax is BenchmarkAutoscalerDecision with
// max-replicas 3,000 on the 6,000 full pods: the cycle simulates the
// largest size allowed to report what it would leave pending per source.
//
//	go test ./statefulset -run '^$' -bench AutoscalerOverMax -benchtime 5x
func BenchmarkAutoscalerOverMax(b *testing.B) {
	ctx := benchCtx()
	a, _ := autoscalerBenchSetup(b, ctx, w2, nil, 3000)
	var total time.Duration
	var last Decision
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
	if len(last.PendingAtMax) == 0 || len(last.Draining) != 0 {
		b.Fatalf("decision = %+v, want pending reported at max-replicas and nothing drained", last)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/decision")
	b.ReportMetric(float64(last.Simulations), "simulations")
	b.ReportMetric(float64(last.Unplaceable), "pending-at-max")
}

func autoscalerBenchSetup(b *testing.B, ctx context.Context, w workload, schedData map[string]string, maxReplicas int32) (*Autoscaler, int64) {
	b.Helper()
	profiles := benchProfiles(b, schedData)
	rng := rand.New(rand.NewSource(1))
	vpods := makeSources(w, rng)
	c := benchCluster(b, w)
	s := startBenchScheduler(b, c, w, profiles, &vpods)
	placeAll(b, ctx, s, vpods)
	// Fill every pod, then ask for 1,000 more vreplicas.
	free := int64(w.pods)*benchCapacity - func() int64 {
		var n int64
		for _, v := range vpods {
			n += int64(vsched.TotalVReplicas(v.placements))
		}
		return n
	}()
	add := func(name string, n int32) {
		v := &benchVPod{key: types.NamespacedName{Namespace: "ns", Name: name}, vreplicas: n, rv: 1}
		vpods = append(vpods, v)
		ps, err := s.Schedule(ctx, v)
		if err != nil && vsched.PendingCount(err) == 0 {
			b.Fatal(err)
		}
		commit(s, v, ps)
	}
	for i := 0; free > 0; i++ {
		n := int32(min(free, 20))
		add(fmt.Sprintf("fill-%05d", i), n)
		free -= int64(n)
	}
	for i := 0; i < 50; i++ {
		add(fmt.Sprintf("burst-%03d", i), 20)
	}
	var pending int64
	s.withState(func(st *state.State) { _, pending = st.Pending() })
	if pending != 1000 {
		b.Fatalf("pending = %d, want 1000", pending)
	}
	client := c.Client()
	cfg := config.DefaultAutoscalerConfig()
	cfg.MaxReplicas = maxReplicas
	// Every iteration must decide the same thing: the scheduler's
	// informers would show a written size to the next one.
	cfg.RecommendOnly = true
	a, err := NewAutoscaler(ctx, AutoscalerConfig{Scheduler: s, Client: client, Config: func() *config.AutoscalerConfig { return cfg }})
	if err != nil {
		b.Fatal(err)
	}
	return a, pending
}
