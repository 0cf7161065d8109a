package statefulset

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// BenchmarkSources measures Schedule and Observe per call as the number of
// sources the scheduler knows grows, on W2's cluster (6,000 pods of 20 on 12
// nodes): what a call costs must not follow the sources it does not touch.
// Run with:
//
//	go test ./statefulset -run '^$' -bench 'Sources' -benchtime 1x
//
// Every source but the probes holds one vreplica, committed before the
// scheduler starts (it loads them from the lister). The measured calls
// shrink and grow the probes in turn and commit each result; a shrink's
// commit frees room, so Observe requeues the pending sources.
func BenchmarkSources(b *testing.B) {
	const probes, calls = 100, 2000
	ctx := benchCtx()
	c := benchCluster(b, w2)
	b.Cleanup(c.Shutdown)
	profiles := benchProfiles(b, nil)
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("sources=%d", n), func(b *testing.B) {
			var sched, obs time.Duration
			var schedAllocs, obsAllocs uint64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				vpods := fillerSources(n-probes, w2.pods)
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
		})
	}
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
