package statefulset

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vsched/vsched/memcluster"
)

// BenchmarkZoneFull is issue 21's hard-zone-spread case: W2's 6,000 pods of
// capacity 20 and 10,000 sources of 1..20 vreplicas, on zones that differ in
// size (60, 40 and 20 nodes, pods laid out round-robin over the nodes, so
// 3,000 / 2,000 / 1,000 pods). An even zone spread fills the smallest zone
// after about 60,000 vreplicas, so the last third of the sources find it
// full: under deploy/sample's zone-hard profile they stay partly pending
// (EvenZoneSpread is a hard rule), which runs the pending path (the reason
// a source could not be placed) on every call. allocs/call is the figure
// the issue sets a goal for (at most 200, every profile). Run with:
//
//	go test ./statefulset -run '^$' -bench 'ZoneFull' -benchtime 1x
func BenchmarkZoneFull(b *testing.B) {
	ctx := benchCtx()
	w := workload{"zoneFull", 3, 120, 6000, 10000}
	var cluster *memcluster.Cluster
	lazyCluster := func() *memcluster.Cluster {
		if cluster == nil {
			cluster = unevenZonesCluster(b, w, []int{60, 40, 20})
			b.Cleanup(cluster.Shutdown)
		}
		return cluster
	}
	for _, prof := range []struct {
		name string
		data map[string]string
	}{{"zoneHard", zoneHardScheduler}, {"default", nil}, {"kafkaHA", haScheduler}, {"example", exampleScheduler}} {
		profiles := benchProfiles(b, prof.data)
		b.Run(prof.name+"/place", func(b *testing.B) {
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
		b.Run(prof.name+"/rescale", func(b *testing.B) {
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

// unevenZonesCluster builds w's pods on zones of the given node counts,
// nodes listed zone by zone.
func unevenZonesCluster(b testing.TB, w workload, nodesPerZone []int) *memcluster.Cluster {
	b.Helper()
	var nodes []memcluster.NodeSpec
	for z, n := range nodesPerZone {
		for i := 0; i < n; i++ {
			nodes = append(nodes, memcluster.NodeSpec{Name: fmt.Sprintf("node-%c-%d", 'a'+z, i), Zone: fmt.Sprintf("zone-%c", 'a'+z)})
		}
	}
	c, err := memcluster.New(benchCtx(), memcluster.Options{
		Namespace: "ns", StatefulSetName: "adapter", Nodes: nodes, Replicas: int32(w.pods), Capacity: benchCapacity,
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(benchCtx()); err != nil {
		b.Fatal(err)
	}
	return c
}
