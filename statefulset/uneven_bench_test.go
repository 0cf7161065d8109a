package statefulset

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/memcluster"
)

// The per-call benchmark on zones of different sizes (issue 21's workload).
// Run with:
//
//	go test ./statefulset -run '^$' -bench 'UnevenZones' -benchtime 5x
//
// 3 zones of 6, 4 and 2 nodes, 600 pods of capacity 20 round-robin over
// the nodes, 1,000 sources of which four in five hold 1..5 vreplicas and the
// rest 20..50 (fixed seed); place places every source once, rescale then
// rescales 1,000 random sources to a new size of the same distribution.
// Every result is committed as a controller's status write would.
// ns/call and cpu-ns/call are the Schedule calls' wall clock and the
// process's CPU time over them; allocs/call counts the whole phase
// (Schedule and the commit's Observe), as BenchmarkWorkload does.
//
// The file uses only helpers that bench_test.go has had since before issue
// 21 (benchProfiles, startBenchScheduler, commit, haScheduler,
// zoneHardScheduler), so that it can be copied into an older tree and the
// two test binaries compared (make bench-compare, docs/performance.md).

const unevenRescales = 1000

// unevenCluster is 3 zones of 6, 4 and 2 nodes and 600 pods of capacity 20
// spread round-robin over the nodes.
func unevenCluster(b testing.TB) *memcluster.Cluster {
	b.Helper()
	var nodes []memcluster.NodeSpec
	for z, n := range []int{6, 4, 2} {
		zone := fmt.Sprintf("zone-%c", 'a'+z)
		for i := 0; i < n; i++ {
			nodes = append(nodes, memcluster.NodeSpec{Name: fmt.Sprintf("node-%c-%d", 'a'+z, i), Zone: zone})
		}
	}
	c, err := memcluster.New(benchCtx(), memcluster.Options{
		Namespace: "ns", StatefulSetName: "adapter", Nodes: nodes, Replicas: 600, Capacity: benchCapacity,
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(benchCtx()); err != nil {
		b.Fatal(err)
	}
	return c
}

// unevenSize draws a source's size: 1..5 four times in five, else 20..50.
func unevenSize(rng *rand.Rand) int32 {
	if rng.Intn(5) < 4 {
		return int32(1 + rng.Intn(5))
	}
	return int32(20 + rng.Intn(31))
}

// unevenMeter sums the Schedule calls' wall and CPU time and the phase's
// allocations.
type unevenMeter struct {
	wall, cpu time.Duration
	allocs    uint64
	calls     int
}

// schedule runs one timed Schedule call for v at size and commits it.
func (m *unevenMeter) schedule(b *testing.B, ctx context.Context, s *Scheduler, v *benchVPod, size int32) {
	v.vreplicas = size
	v.rv++
	start, cpu0 := time.Now(), processCPU()
	ps, err := s.Schedule(ctx, v)
	m.wall += time.Since(start)
	m.cpu += processCPU() - cpu0
	m.calls++
	if err != nil && vsched.PendingCount(err) == 0 {
		b.Fatal(err)
	}
	commit(s, v, ps)
}

func BenchmarkUnevenZones(b *testing.B) {
	ctx := benchCtx()
	var cluster *memcluster.Cluster
	outer := b
	for _, prof := range []struct {
		name string
		data map[string]string
	}{{"default", nil}, {"kafkaHA", haScheduler}, {"zoneHard", zoneHardScheduler}} {
		profiles := benchProfiles(b, prof.data)
		for _, phase := range []string{"place", "rescale"} {
			b.Run(prof.name+"/"+phase, func(b *testing.B) {
				if cluster == nil { // shut down when the whole benchmark ends
					cluster = unevenCluster(outer)
					outer.Cleanup(cluster.Shutdown)
				}
				var m unevenMeter
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					rng := rand.New(rand.NewSource(21))
					vpods := make([]*benchVPod, 1000)
					for j := range vpods {
						vpods[j] = &benchVPod{key: types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("src-%04d", j)}, rv: 1}
					}
					s := startBenchScheduler(b, cluster, workload{pods: 600}, profiles, &vpods)
					var setup unevenMeter
					place := &m
					if phase == "rescale" {
						place = &setup
					}
					m.phase(b, func() {
						for _, v := range vpods {
							place.schedule(b, ctx, s, v, unevenSize(rng))
						}
					}, phase == "place")
					if phase == "rescale" {
						m.phase(b, func() {
							for j := 0; j < unevenRescales; j++ {
								m.schedule(b, ctx, s, vpods[rng.Intn(len(vpods))], unevenSize(rng))
							}
						}, true)
					}
					s.Close()
				}
				n := float64(m.calls)
				b.ReportMetric(float64(m.wall.Nanoseconds())/n, "ns/call")
				b.ReportMetric(float64(m.cpu.Nanoseconds())/n, "cpu-ns/call")
				b.ReportMetric(float64(m.allocs)/n, "allocs/call")
			})
		}
	}
}

// phase runs f, timed and its allocations counted when measured; the
// garbage of what ran before is collected first.
func (m *unevenMeter) phase(b *testing.B, f func(), measured bool) {
	if !measured {
		f()
		return
	}
	runtime.GC()
	b.StartTimer()
	m0 := mallocs()
	f()
	m.allocs += mallocs() - m0
	b.StopTimer()
}

// processCPU is the CPU time the process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
