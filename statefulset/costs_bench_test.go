package statefulset

import (
	"fmt"
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
)

// Benchmarks for weighted vreplicas (issue 23). Run with:
//
//	go test ./statefulset -run '^$' -bench 'WeightedWorkload/W1' -benchtime 3x
//
// W1's cluster and sources (600 pods of 20 slots on 12 nodes, 1,000
// sources of 1 to 20 vreplicas), and W2's (6,000 pods, 10,000 sources),
// every pod with 4Gi of memory, one source in ten costing 1000Mi per
// vreplica and the others 100Mi. Three ways (W2: the first two):
//
//   - nocost: the sources declare no cost (today's W1, through this
//     type): the reference for ns/call and allocs/call;
//   - cost: the sources declare their cost and the pods have memory;
//   - countonly: the sources declare their cost, the pods have no memory
//     configured, so placement counts slots only, as before issue 23.
//
// Each reports, of its last run, the pods over their memory after
// placing (from the placements and the declared costs), the vreplicas
// pending, the pods used, and the bound max over slots and memory of
// ceil(total / pod capacity) + nodes (TestWeightedWorkloadQuality checks
// the cost run's against it), the used pods partly filled, and the heavy
// vreplicas the full pods could have held and do not (heavy-room-lost).

const (
	benchPodMemory = "4Gi"
	benchLight     = "100Mi"
	benchHeavy     = "1000Mi"
)

// costVPod is a source that declares its cost (nil: none).
type costVPod struct {
	benchVPod
	cost corev1.ResourceList
}

func (v *costVPod) GetVReplicaCost() corev1.ResourceList { return v.cost }

func makeCostSources(w workload, declare bool) []*costVPod {
	rng := rand.New(rand.NewSource(1))
	out := make([]*costVPod, w.sources)
	for i := range out {
		v := &costVPod{benchVPod: benchVPod{key: types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("src-%05d", i)}, vreplicas: int32(1 + rng.Intn(20)), rv: 1}}
		if declare {
			v.cost = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(benchCost(i))}
		}
		out[i] = v
	}
	return out
}

// benchCost is source i's memory per vreplica: one in ten is heavy.
func benchCost(i int) string {
	if i%10 == 0 {
		return benchHeavy
	}
	return benchLight
}

func BenchmarkWeightedWorkload(b *testing.B) {
	profiles := benchProfiles(b, nil)
	outer := b
	for _, w := range []workload{w1, w2} {
		// Built by the first sub-benchmark that runs: -bench usually
		// selects one workload.
		var cluster *memcluster.Cluster
		for _, mode := range []struct {
			name             string
			declare, podsMem bool
		}{{"nocost", false, false}, {"cost", true, true}, {"countonly", true, false}} {
			if w != w1 && mode.name == "countonly" {
				continue // W1's shows what costs are for
			}
			b.Run(w.name+"/"+mode.name, func(b *testing.B) {
				if cluster == nil { // shut down when the whole benchmark ends
					cluster = benchCluster(outer, w)
					outer.Cleanup(cluster.Shutdown)
				}
				runWeighted(b, cluster, w, profiles, mode.declare, mode.podsMem)
			})
		}
	}
}

// runWeighted is one sub-benchmark of BenchmarkWeightedWorkload.
func runWeighted(b *testing.B, cluster *memcluster.Cluster, w workload, profiles config.ProfilesSource, declare, podsMem bool) {
	var m phaseMeter
	var q weightedQuality
	for i := 0; i < b.N; i++ {
		m.run(b, func() (*Scheduler, func()) {
			vpods := makeCostSources(w, declare)
			s := startWeighted(b, cluster, w, profiles, vpods, podsMem)
			return s, func() { q = scheduleWeighted(b, s, w, vpods) }
		})
	}
	m.report(b, w.sources)
	q.report(b)
}

// startWeighted starts a scheduler listing vpods, its pods with
// benchPodMemory of memory when podsMem.
func startWeighted(b testing.TB, cluster *memcluster.Cluster, w workload, profiles config.ProfilesSource, vpods []*costVPod, podsMem bool) *Scheduler {
	return startBenchSchedulerWith(b, cluster, w, profiles, &[]*benchVPod{}, func(cfg *Config) {
		cfg.Lister = func() ([]vsched.VPod, error) {
			out := make([]vsched.VPod, len(vpods))
			for i, v := range vpods {
				out[i] = v
			}
			return out, nil
		}
		if podsMem {
			cfg.PodResources = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(benchPodMemory)}
		}
	})
}

// scheduleWeighted schedules and observes every source once, in order,
// and measures the placement.
func scheduleWeighted(b testing.TB, s *Scheduler, w workload, vpods []*costVPod) weightedQuality {
	ctx := benchCtx()
	var q weightedQuality
	for _, v := range vpods {
		ps, err := s.Schedule(ctx, v)
		if err != nil && vsched.PendingCount(err) == 0 {
			b.Fatal(err)
		}
		q.pending += int64(vsched.PendingCount(err))
		v.placements = ps
		v.rv++
		s.Observe(v)
	}
	q.measure(w, vpods)
	return q
}

// weightedQuality is what a weighted placement achieved.
type weightedQuality struct {
	pending, over, used, bound int64
	// partial is the used pods with free slots; lost is the heavy
	// vreplicas the full pods could have held beside light ones and do
	// not (benchHeavyPerPod less their heavy ones, summed): every two
	// lost take a pod more once the heavy vreplicas are a tenth. It
	// means that only with costs: without, pods take more heavy ones
	// and go over their memory.
	partial, lost int64
}

// benchHeavyPerPod is how many heavy vreplicas a pod full of vreplicas
// holds at most: with three, ten light ones leave 96Mi for seven slots.
func benchHeavyPerPod() int64 {
	limit, light, heavy := resource.MustParse(benchPodMemory), resource.MustParse(benchLight), resource.MustParse(benchHeavy)
	return (limit.MilliValue() - benchCapacity*light.MilliValue()) / (heavy.MilliValue() - light.MilliValue())
}

// measure counts, from the placements and the declared costs (whatever
// the scheduler was told), the pods over their memory and the pods used,
// and the bound on the pods used.
func (q *weightedQuality) measure(w workload, vpods []*costVPod) {
	limit := resource.MustParse(benchPodMemory)
	memory := map[int32]int64{}
	slots := map[int32]int64{}
	heavy := map[int32]int64{}
	var totalSlots, totalMemory int64
	for i, v := range vpods {
		cost := resource.MustParse(benchCost(i))
		for _, p := range v.placements {
			ord, _ := vsched.OrdinalFromPodName(p.PodName)
			memory[ord] += int64(p.VReplicas) * cost.MilliValue()
			slots[ord] += int64(p.VReplicas)
			if benchCost(i) == benchHeavy {
				heavy[ord] += int64(p.VReplicas)
			}
			totalSlots += int64(p.VReplicas)
			totalMemory += int64(p.VReplicas) * cost.MilliValue()
		}
	}
	q.over, q.used, q.partial, q.lost = 0, 0, 0, 0
	perPod := benchHeavyPerPod()
	for ord, n := range slots {
		if n > 0 {
			q.used++
		}
		switch {
		case n > 0 && n < benchCapacity:
			q.partial++
		case n == benchCapacity:
			q.lost += max(0, perPod-heavy[ord])
		}
		if memory[ord] > limit.MilliValue() {
			q.over++
		}
	}
	ceil := func(a, b int64) int64 { return (a + b - 1) / b }
	q.bound = max(ceil(totalSlots, benchCapacity), ceil(totalMemory, limit.MilliValue())) + int64(w.nodes)
}

func (q *weightedQuality) report(b *testing.B) {
	b.ReportMetric(float64(q.over), "pods-over-memory")
	b.ReportMetric(float64(q.pending), "pending")
	b.ReportMetric(float64(q.used), "pods-used")
	b.ReportMetric(float64(q.bound), "pods-bound")
	b.ReportMetric(float64(q.partial), "pods-partial")
	b.ReportMetric(float64(q.lost), "heavy-room-lost")
}
