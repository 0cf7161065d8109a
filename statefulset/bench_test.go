package statefulset

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"go.uber.org/zap"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/state"
)

// Benchmarks for the workloads. Run with:
//
//	go test ./statefulset -run '^$' -bench 'Workload/^(W1|W2a|W2)$' -benchtime 3x
//	go test ./statefulset -run '^$' -bench 'Workload/^(W2|W2n120|W2n1200|W3)$' -benchtime 1x
//
// Each iteration runs a whole phase; ns/call is the figure to read.

type workload struct {
	name    string
	zones   int
	nodes   int
	pods    int
	sources int
}

var (
	w1  = workload{"W1", 3, 12, 600, 1000}
	w2  = workload{"W2", 3, 12, 6000, 10000}
	w2a = workload{"W2a", 3, 12, 6000, 1000}
	// W2 on more nodes, and W3: what a call costs must not follow the
	// nodes (issue 15).
	w2n120  = workload{"W2n120", 3, 120, 6000, 10000}
	w2n1200 = workload{"W2n1200", 3, 1200, 6000, 10000}
	w3      = workload{"W3", 3, 1200, 60000, 100000}
)

const benchCapacity = 20

// HA is the Kafka HA profile.
var haScheduler = map[string]string{
	"predicates": `[{"Name":"PodFitsResources"},{"Name":"NoMaxResourceCount","Args":"{\"NumPartitions\": 100}"}]`,
	"priorities": `[{"Name":"AvailabilityZonePriority","Weight":10,"Args":"{\"MaxSkew\": 2}"},{"Name":"LowestOrdinalPriority","Weight":2},{"Name":"EvenPodSpread","Weight":2,"Args":"{\"MaxSkew\": 2}"}]`,
}

// zoneHardScheduler is deploy/sample's config-scheduler: zone spread as a
// hard rule (EvenZoneSpread, a Rebalancer, so shrinking sources are also
// checked for evenness), the default's node spread, packing and pod spread,
// and the zones ranked by free room last.
var zoneHardScheduler = map[string]string{
	"predicates": `[{"Name":"PodFitsResources"},{"Name":"EvenZoneSpread","Args":{"MaxSkew":1}}]`,
	"priorities": `[{"Name":"AvailabilityNodePriority","Weight":8,"Args":{"MaxSkew":1}},{"Name":"InUsePodPriority","Weight":4},` +
		`{"Name":"EvenPodSpread","Weight":2,"Args":{"MaxSkew":1}},{"Name":"BalancedZonePriority","Weight":1}]`,
}

func benchProfiles(b testing.TB, schedData map[string]string) config.ProfilesSource {
	b.Helper()
	sched := plugins.DefaultPlaceConfig()
	if schedData != nil {
		var err error
		if sched, err = config.ParsePlaceConfigMapFromData(schedData, inTree); err != nil {
			b.Fatal(err)
		}
	}
	ps, err := config.BuildProfiles(context.Background(), inTree, sched, plugins.DefaultRemoveConfig())
	if err != nil {
		b.Fatal(err)
	}
	p := config.Profiles{Place: ps.Place, Remove: ps.Remove}
	return func() config.Profiles { return p }
}

type benchVPod struct {
	key        types.NamespacedName
	vreplicas  int32
	placements []vsched.Placement
	rv         int
}

func (v *benchVPod) GetKey() types.NamespacedName      { return v.key }
func (v *benchVPod) GetVReplicas() int32               { return v.vreplicas }
func (v *benchVPod) GetPlacements() []vsched.Placement { return v.placements }
func (v *benchVPod) GetResourceVersion() string        { return strconv.Itoa(v.rv) }

// benchCluster builds the workload's cluster once: nodes round-robin over the
// zones, every pod bound, on client-go's fake clientset with real informers.
func benchCluster(b testing.TB, w workload) *memcluster.Cluster {
	b.Helper()
	zones := make([]string, w.zones)
	for i := range zones {
		zones[i] = fmt.Sprintf("zone-%d", i)
	}
	c, err := memcluster.New(benchCtx(), memcluster.Options{
		Namespace: "ns", StatefulSetName: "adapter", Zones: zones, NodesPerZone: w.nodes / w.zones,
		Replicas: int32(w.pods), Capacity: benchCapacity,
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(benchCtx()); err != nil {
		b.Fatal(err)
	}
	return c
}

// startBenchScheduler starts a scheduler on c, as a controller restart would,
// and waits until its informer handlers have seen every pod.
func startBenchScheduler(b testing.TB, c *memcluster.Cluster, w workload, profiles config.ProfilesSource, vpods *[]*benchVPod) *Scheduler {
	b.Helper()
	return startBenchSchedulerWith(b, c, w, profiles, vpods, nil)
}

// startBenchSchedulerWith is startBenchScheduler with the config changed by
// edit (nil: none).
func startBenchSchedulerWith(b testing.TB, c *memcluster.Cluster, w workload, profiles config.ProfilesSource, vpods *[]*benchVPod, edit func(*Config)) *Scheduler {
	b.Helper()
	cfg := Config{
		Namespace: "ns", Name: "adapter", Capacity: benchCapacity,
		Lister: func() ([]vsched.VPod, error) {
			out := make([]vsched.VPod, len(*vpods))
			for i, v := range *vpods {
				out[i] = v
			}
			return out, nil
		},
		ListerSynced: func() bool { return true }, // the slice is the whole truth
		Informers:    InformersFromFactory(c.InformerFactory()),
		Profiles:     profiles,
		AlwaysLeader: true,
		// The move limit of a live config-autoscaler, as embedkit wires it.
		DrainMoveLimit: config.NewAutoscalerStore(benchCtx(), "", nil).DrainMoveLimit,
	}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(benchCtx(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	err = c.WaitFor(benchCtx(), func() bool {
		n := 0
		s.withState(func(st *state.State) { n = len(st.Candidates()) })
		// Every pod listed is not enough: under load the StatefulSet's
		// informer may not have synced yet, and Schedule would refuse.
		return n == w.pods && s.NotReady() == ""
	})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func makeSources(w workload, rng *rand.Rand) []*benchVPod {
	out := make([]*benchVPod, w.sources)
	for i := range out {
		out[i] = &benchVPod{key: types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("src-%05d", i)}, vreplicas: int32(1 + rng.Intn(20)), rv: 1}
	}
	return out
}

// commit writes a decision to the source's status, as a controller does.
func commit(s *Scheduler, v *benchVPod, ps []vsched.Placement) {
	v.placements = ps
	v.rv++
	s.Observe(v)
}

func placeAll(b testing.TB, ctx context.Context, s *Scheduler, vpods []*benchVPod) {
	for _, v := range vpods {
		ps, err := s.Schedule(ctx, v)
		if err != nil && vsched.PendingCount(err) == 0 {
			b.Fatal(err)
		}
		commit(s, v, ps)
	}
}

func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

func heapMiB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

func benchCtx() context.Context {
	return logging.WithLogger(context.Background(), zap.NewNop().Sugar())
}

func BenchmarkWorkload(b *testing.B) {
	ctx := benchCtx()
	for _, w := range []workload{w1, w2a, w2, w2n120, w2n1200, w3} {
		// Built by the first sub-benchmark that runs: W3's 60,000 pods
		// take a while, and -bench usually selects a few workloads.
		var cluster *memcluster.Cluster
		lazyCluster := func() *memcluster.Cluster {
			if cluster == nil {
				cluster = benchCluster(b, w)
				b.Cleanup(cluster.Shutdown)
			}
			return cluster
		}
		for _, prof := range []struct {
			name string
			data map[string]string
		}{{"default", nil}, {"kafkaHA", haScheduler}, {"zoneHard", zoneHardScheduler}} {
			profiles := benchProfiles(b, prof.data)
			b.Run(w.name+"/"+prof.name+"/place", func(b *testing.B) {
				var m phaseMeter
				for i := 0; i < b.N; i++ {
					m.run(b, func() (*Scheduler, func()) {
						vpods := makeSources(w, rand.New(rand.NewSource(1)))
						s := startBenchScheduler(b, lazyCluster(), w, profiles, &vpods)
						return s, func() { placeAll(b, ctx, s, vpods) }
					})
				}
				m.report(b, w.sources)
			})
			b.Run(w.name+"/"+prof.name+"/rescale", func(b *testing.B) {
				const rescales = 1000
				var m phaseMeter
				for i := 0; i < b.N; i++ {
					m.run(b, func() (*Scheduler, func()) {
						return rescaleSetup(b, ctx, lazyCluster(), w, profiles, rescales)
					})
				}
				m.report(b, rescales)
			})
		}
	}
}

// rescaleSetup places a workload's sources, and returns the scheduler and
// the phase: rescales sources drawn from a fixed seed to new sizes.
func rescaleSetup(b *testing.B, ctx context.Context, c *memcluster.Cluster, w workload, profiles config.ProfilesSource, rescales int) (*Scheduler, func()) {
	rng := rand.New(rand.NewSource(1))
	vpods := makeSources(w, rng)
	s := startBenchScheduler(b, c, w, profiles, &vpods)
	placeAll(b, ctx, s, vpods)
	picks := make([]int, rescales)
	sizes := make([]int32, rescales)
	for j := range picks {
		picks[j], sizes[j] = rng.Intn(len(vpods)), int32(1+rng.Intn(20))
	}
	return s, func() {
		for j := range picks {
			v := vpods[picks[j]]
			v.vreplicas = sizes[j]
			v.rv++
			ps, err := s.Schedule(ctx, v)
			if err != nil && vsched.PendingCount(err) == 0 {
				b.Fatal(err)
			}
			commit(s, v, ps)
		}
	}
}

// phaseMeter sums what a benchmark's phase costs over b.N runs: wall and
// CPU time, allocations, and the peak heap after it.
type phaseMeter struct {
	total, cpu time.Duration
	allocs     uint64
	peak       float64
}

// run measures one run: setup, untimed, returns the scheduler and the
// phase; only the phase is timed, and the scheduler is closed after it.
func (m *phaseMeter) run(b *testing.B, setup func() (*Scheduler, func())) {
	b.StopTimer()
	s, phase := setup()
	// The setup's garbage is not the phase's to collect.
	runtime.GC()
	b.StartTimer()
	m0 := mallocs()
	start, c0 := time.Now(), processCPU()
	phase()
	m.total += time.Since(start)
	m.cpu += processCPU() - c0
	m.allocs += mallocs() - m0
	b.StopTimer()
	m.peak = max(m.peak, heapMiB())
	s.Close()
	b.StartTimer()
}

// report gives the sums per call, for calls calls a run.
func (m *phaseMeter) report(b *testing.B, calls int) {
	n := float64(b.N * calls)
	b.ReportMetric(float64(m.total.Nanoseconds())/n, "ns/call")
	b.ReportMetric(float64(m.cpu.Nanoseconds())/n, "cpu-ns/call")
	b.ReportMetric(float64(m.allocs)/n, "allocs/call")
	b.ReportMetric(m.peak, "heap-MiB")
}

var _ = framework.Place

// newBenchScheduler is startBenchScheduler on a cluster of its own.
func newBenchScheduler(b testing.TB, w workload, profiles config.ProfilesSource, vpods *[]*benchVPod) *Scheduler {
	b.Helper()
	return startBenchScheduler(b, benchCluster(b, w), w, profiles, vpods)
}
