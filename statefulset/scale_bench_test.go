package statefulset

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
)

// BenchmarkSources measures Schedule and Observe per call as the number of
// sources the scheduler knows grows, on W2's cluster (6,000 pods of 20 on 12
// nodes): what a call costs must not follow the sources it does not touch.
// Run with:
//
//	go test ./statefulset -run '^$' -bench 'Sources' -benchtime 1x
//
// The sources but the probes are committed before the scheduler starts (it
// loads them from the lister). In the plain cases each holds one vreplica,
// so more sources also mean fuller pods; in the fill=even cases they hold
// 17 vreplicas on every pod between them, so only their number changes,
// and Schedule must cost the same at 1,000 and at 100,000. The measured calls
// shrink and grow the probes in turn and commit each result; a shrink's
// commit frees room, so Observe requeues the pending sources.
func BenchmarkSources(b *testing.B) {
	ctx := benchCtx()
	c := benchCluster(b, w2)
	b.Cleanup(c.Shutdown)
	profiles := benchProfiles(b, nil)
	fills := []struct {
		name    string
		fillers func(n int) []*benchVPod
	}{
		// One vreplica per filler: the more sources, the fuller the pods.
		{"", func(n int) []*benchVPod { return fillerSources(n, w2.pods) }},
		// The same 17 vreplicas on every pod however many sources hold
		// them: only the number of sources changes.
		{"/fill=even", func(n int) []*benchVPod { return evenFillerSources(n, w2.pods, 17) }},
	}
	for _, fill := range fills {
		for _, n := range []int{1000, 10000, 100000} {
			b.Run(fmt.Sprintf("sources=%d%s", n, fill.name), func(b *testing.B) {
				benchSourcesRun(b, ctx, c, profiles, n, fill.fillers)
			})
		}
	}
}

// benchSourcesRun is one BenchmarkSources case: n sources, 100 of them
// probes that the measured calls shrink and grow in turn.
func benchSourcesRun(b *testing.B, ctx context.Context, c *memcluster.Cluster, profiles config.ProfilesSource, n int, fillers func(int) []*benchVPod) {
	const probes, calls = 100, 2000
	var sched, obs time.Duration
	var schedAllocs, obsAllocs uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		vpods := fillers(n - probes)
		probe := vpods[len(vpods):]
		for j := 0; j < probes; j++ {
			probe = append(probe, &benchVPod{key: types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("probe-%03d", j)}, vreplicas: 10, rv: 1})
		}
		vpods = append(vpods, probe...)
		requeued := 0
		s := startBenchSchedulerWith(b, c, w2, profiles, &vpods, func(cfg *Config) {
			cfg.Requeue = func(types.NamespacedName) { requeued++ }
		})
		placeAll(b, ctx, s, probe)
		rng := rand.New(rand.NewSource(1))
		b.StartTimer()
		for j := 0; j < calls; j++ {
			v := probe[rng.Intn(len(probe))]
			v.vreplicas = 15 - v.vreplicas // 10 <-> 5
			v.rv++
			m0 := mallocs()
			t0 := time.Now()
			ps, err := s.Schedule(ctx, v)
			sched += time.Since(t0)
			m1 := mallocs()
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			commit(s, v, ps)
			obs += time.Since(t1)
			schedAllocs += m1 - m0
			obsAllocs += mallocs() - m1
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	per := float64(b.N * calls)
	b.ReportMetric(float64(sched.Nanoseconds())/per, "schedule-ns/call")
	b.ReportMetric(float64(obs.Nanoseconds())/per, "observe-ns/call")
	b.ReportMetric(float64(schedAllocs)/per, "schedule-allocs/call")
	b.ReportMetric(float64(obsAllocs)/per, "observe-allocs/call")
}

// evenFillerSources returns n sources holding perPod vreplicas on every one
// of pods pods between them, one vreplica per pod, round-robin: each pod
// ends up as full whatever n is.
func evenFillerSources(n, pods, perPod int) []*benchVPod {
	total := pods * perPod
	out := make([]*benchVPod, n)
	next := 0
	for i := range out {
		k := total / n
		if i < total%n {
			k++
		}
		ps := make([]vsched.Placement, 0, k)
		for j := 0; j < k; j++ {
			ps = append(ps, vsched.Placement{PodName: vsched.PodName("adapter", int32((next+j)%pods)), VReplicas: 1})
		}
		next += k
		vsched.SortPlacements(ps)
		out[i] = &benchVPod{
			key:        types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("src-%06d", i)},
			vreplicas:  int32(k),
			placements: ps,
			rv:         1,
		}
	}
	return out
}

// fillerSources returns n sources of one vreplica each, committed round-robin
// over the pods.
func fillerSources(n, pods int) []*benchVPod {
	out := make([]*benchVPod, n)
	for i := range out {
		out[i] = &benchVPod{
			key:        types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("src-%06d", i)},
			vreplicas:  1,
			placements: []vsched.Placement{{PodName: vsched.PodName("adapter", int32(i%pods)), VReplicas: 1}},
			rv:         1,
		}
	}
	return out
}
