package statefulset

import (
	"fmt"
	"math/rand"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/state"
)

// The placement-quality benchmark: how well a profile spreads and packs on a
// cluster whose zones differ in size, while one zone fills up and another
// fails and recovers. Run with:
//
//	go test ./statefulset -run '^$' -bench 'PlacementQuality' -benchtime 1x
//
// The cluster is fixed (no autoscaler): zones of 6, 4 and 2 nodes (the
// smallest a third of the largest), 600 pods of capacity 20 spread
// round-robin over the nodes (300 / 200 / 100 pods per zone), and 1,000
// sources of mixed sizes (four in five want 1..5 vreplicas, the rest
// 10..50), about 8,400 vreplicas for 12,000 slots: an even spread fills the
// smallest zone (2,000 slots) before the last third of the sources. Phases,
// each committing every result as a controller would:
//
//	place    every source once
//	rescale  1,000 random sources to a new size of the same distribution
//	failed   zone-b fails; 300 random sources rescaled
//	back     zone-b recovers; 300 random sources rescaled
//
// Metrics (every one is over all the phases' Schedule calls):
//
//	uneven-%        share of the calls, among those where the zones' free
//	                room allowed a zone skew within MaxSkew over the healthy
//	                zones, that ended above MaxSkew (goal 0); for the
//	                example profile, among those after which every healthy
//	                zone can still take a vreplica
//	skew-room-max   the largest zone skew over the zones with room after the
//	                call, among the calls where those zones were within
//	                MaxSkew of each other before it: a zone filling up or
//	                full must not unbalance the rest (goal <= MaxSkew). For
//	                the example profile, whose pod spread is a hard rule,
//	                a zone has room when one of its pods passes every
//	                filter for one more vreplica of the source
//	skew-healthy-max the largest zone skew over the healthy zones after any
//	                call (no goal: full and recovered zones make it large)
//	pods-over-bound pods holding vreplicas minus ceil(vreplicas / capacity)
//	                at the end of place (goal <= nodes, 12)
//	pods-over-bound-rescaled  the same at the end of rescale (no goal: a
//	                source that shrinks leaves a hole no other may fill)
//	moves           vreplicas moved by a call beyond what its own shrink
//	                removed, plus any other source's placements that changed
//	                (goal 0)
//	place-ns/call, rescale-ns/call  Schedule time only (the metrics are
//	                computed outside the timed part)
//	place-cpu-ns/call, rescale-cpu-ns/call  the process's CPU time over the
//	                same calls, which a loaded machine disturbs less than
//	                the wall clock

type qualityProfile struct {
	name    string
	data    map[string]string
	maxSkew int32
	// hard: a filter other than capacity can close a zone with free
	// room to the source (a hard pod spread); a zone then has room when
	// one of its pods passes every filter for one more vreplica.
	hard bool
}

var qualityProfiles = []qualityProfile{
	{"default", nil, 1, false},
	{"kafkaHA", haScheduler, 2, false},
	{"example", exampleScheduler, 2, true},
}

// exampleScheduler is the design document's example config-scheduler
// (/work/shared/seeds/004): pod spread as a hard rule with MaxSkew 2, zone
// spread as a priority with MaxSkew 2, then the lowest ordinal.
var exampleScheduler = map[string]string{
	"predicates": `[{"Name":"PodFitsResources"},{"Name":"NoMaxResourceCount","Args":"{\"NumPartitions\": 100}"},{"Name":"EvenPodSpread","Args":"{\"MaxSkew\": 2}"}]`,
	"priorities": `[{"Name":"AvailabilityZonePriority","Weight":10,"Args":"{\"MaxSkew\": 2}"},{"Name":"LowestOrdinalPriority","Weight":2}]`,
}

const qualityZones = 3

func qualitySize(rng *rand.Rand) int32 {
	if rng.Intn(5) < 4 {
		return int32(1 + rng.Intn(5))
	}
	return int32(10 + rng.Intn(41))
}

// zoneView is one source's vreplicas and the free room per zone index, and
// which zones are healthy (host a candidate pod).
type zoneView struct {
	on, free []int32
	healthy  []bool
	// elsewhere is the source's vreplicas on pods of no healthy zone
	// (a failed or cordoned one).
	elsewhere int32
}

func viewZones(st *state.State, ps []vsched.Placement) zoneView {
	v := zoneView{on: make([]int32, qualityZones), free: make([]int32, qualityZones), healthy: make([]bool, qualityZones)}
	for _, z := range st.SchedulableZones() {
		if int(z) < qualityZones {
			v.healthy[z] = true
		}
	}
	for _, ord := range st.Candidates() {
		if info, ok := st.Pod(ord); ok && info.ZoneIndex >= 0 && int(info.ZoneIndex) < qualityZones {
			v.free[info.ZoneIndex] += max(st.Free(ord), 0)
		}
	}
	for _, p := range ps {
		ord, ok := st.OrdinalOf(p.PodName)
		info, known := st.Pod(ord)
		// A vreplica on a cordoned node of a healthy zone still runs
		// there, and the spread rules count it in its zone.
		if ok && known && info.ZoneIndex >= 0 && int(info.ZoneIndex) < qualityZones && v.healthy[info.ZoneIndex] {
			v.on[info.ZoneIndex] += p.VReplicas
		} else {
			v.elsewhere += p.VReplicas
		}
	}
	return v
}

// zonesTaking reports per zone whether one of its pods passes every filter
// of place for one more vreplica of v, which holds ps: an explained run of
// one vreplica on a decision of its own evaluates every candidate.
func zonesTaking(b *testing.B, st *state.State, place *framework.Profile, v vsched.VPod, ps []vsched.Placement) []bool {
	d, err := framework.NewDecision(framework.Place, st, v, ps)
	if err != nil {
		b.Fatal(err)
	}
	var ex framework.Explanation
	if _, err := place.Run(benchCtx(), d, 1, &ex); err != nil {
		b.Fatal(err)
	}
	takes := make([]bool, qualityZones)
	for _, c := range ex.Steps[0].Candidates {
		if info, ok := st.Pod(c.Ordinal); ok && c.Feasible && info.ZoneIndex >= 0 && int(info.ZoneIndex) < qualityZones {
			takes[info.ZoneIndex] = true
		}
	}
	return takes
}

// takesAll reports whether every zone in can take a vreplica (takes nil:
// every zone with free room can).
func takesAll(takes, in []bool) bool {
	for z := range takes {
		if in[z] && !takes[z] {
			return false
		}
	}
	return true
}

// skewOver is max - min of counts over the zones in.
func skewOver(counts []int32, in []bool) int32 {
	lo, hi, any := int32(0), int32(0), false
	for z, c := range counts {
		if !in[z] {
			continue
		}
		if !any {
			lo, hi, any = c, c, true
		}
		lo, hi = min(lo, c), max(hi, c)
	}
	return hi - lo
}

// bestSkew is the zone skew over the zones in that the best possible
// decision reaches: delta vreplicas added one at a time to the least loaded
// of those zones with room (removed from the source's vreplicas outside them
// first, then from the most loaded), without moving any other.
func bestSkew(v zoneView, in []bool, delta int32) int32 {
	on := append([]int32(nil), v.on...)
	free := append([]int32(nil), v.free...)
	if delta < 0 {
		delta = min(delta+v.elsewhere, 0)
	}
	for ; delta != 0; delta -= sign(delta) {
		pick := -1
		for z := range on {
			if !in[z] || (delta > 0 && free[z] <= 0) || (delta < 0 && on[z] <= 0) {
				continue
			}
			if pick < 0 || (delta > 0 && on[z] < on[pick]) || (delta < 0 && on[z] > on[pick]) {
				pick = z
			}
		}
		if pick < 0 {
			break
		}
		on[pick] += sign(delta)
		free[pick] -= sign(delta)
	}
	return skewOver(on, in)
}

func sign(v int32) int32 {
	if v < 0 {
		return -1
	}
	return 1
}

type qualityStats struct {
	evenPossible, uneven        int
	skewRoomMax, skewHealthyMax int32
	podsOverBound               [2]int64 // after place, after rescale
	moves                       int64
	placeTime, rescaleTime      time.Duration
	placeCPU, rescaleCPU        time.Duration
	placeCalls, rescaleCalls    int
}

// judge scores one committed call: before and after are the source's zone
// views around it.
func (q *qualityStats) judge(before, after zoneView, delta, maxSkew int32, takes []bool) {
	if bestSkew(before, before.healthy, delta) <= maxSkew && takesAll(takes, after.healthy) {
		q.evenPossible++
		if skewOver(after.on, after.healthy) > maxSkew {
			if os.Getenv("QDEBUG") != "" {
				fmt.Printf("uneven: before %+v after %+v delta %d\n", before, after, delta)
			}
			q.uneven++
		}
	}
	room := make([]bool, qualityZones)
	for z := range room {
		room[z] = after.healthy[z] && after.free[z] > 0 && (takes == nil || takes[z])
	}
	if skewOver(before.on, room) <= maxSkew {
		if sk := skewOver(after.on, room); sk > maxSkew && os.Getenv("QDEBUG") != "" {
			fmt.Printf("room skew %d: before %+v after %+v delta %d\n", sk, before, after, delta)
		}
		q.skewRoomMax = max(q.skewRoomMax, skewOver(after.on, room))
	}
	q.skewHealthyMax = max(q.skewHealthyMax, skewOver(after.on, after.healthy))
}

// movedBy is how many vreplicas the call took off pods beyond its shrink.
func movedBy(old, now []vsched.Placement) int64 {
	was := map[string]int32{}
	var wasTotal, nowTotal int32
	for _, p := range old {
		was[p.PodName] += p.VReplicas
		wasTotal += p.VReplicas
	}
	for _, p := range now {
		was[p.PodName] -= p.VReplicas
		nowTotal += p.VReplicas
	}
	var off int64
	for _, d := range was {
		off += int64(max(d, 0))
	}
	return off - int64(max(wasTotal-nowTotal, 0))
}

// qualityRun places and rescales one workload on c through profile and
// returns its statistics.
func qualityRun(b *testing.B, c *memcluster.Cluster, prof qualityProfile) qualityStats {
	ctx := benchCtx()
	rng := rand.New(rand.NewSource(11))
	vpods := make([]*benchVPod, 1000)
	for i := range vpods {
		vpods[i] = &benchVPod{key: types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("src-%04d", i)}, vreplicas: qualitySize(rng), rv: 1}
	}
	profiles := benchProfiles(b, prof.data)
	place := profiles().Place
	s := startBenchScheduler(b, c, workload{pods: 600}, profiles, &vpods)
	defer s.Close()
	var q qualityStats
	call := func(v *benchVPod, size int32, timer, cpu *time.Duration) {
		var before zoneView
		old := v.placements
		s.withState(func(st *state.State) { before = viewZones(st, old) })
		delta := size - v.vreplicas
		if v.rv == 1 {
			delta = size
		}
		v.vreplicas = size
		v.rv++
		start, cpu0 := time.Now(), processCPU()
		ps, err := s.Schedule(ctx, v)
		*timer += time.Since(start)
		*cpu += processCPU() - cpu0
		if err != nil && vsched.PendingCount(err) == 0 {
			b.Fatal(err)
		}
		commit(s, v, ps)
		var after zoneView
		var takes []bool
		s.withState(func(st *state.State) {
			after = viewZones(st, ps)
			if prof.hard {
				takes = zonesTaking(b, st, place, v, ps)
			}
		})
		q.judge(before, after, delta, prof.maxSkew, takes)
		q.moves += movedBy(old, ps)
	}
	for _, v := range vpods {
		call(v, v.vreplicas, &q.placeTime, &q.placeCPU)
		q.placeCalls++
	}
	q.checkpoint(b, s, vpods, 0)
	rescale := func(n int) {
		for j := 0; j < n; j++ {
			v := vpods[rng.Intn(len(vpods))]
			call(v, qualitySize(rng), &q.rescaleTime, &q.rescaleCPU)
			q.rescaleCalls++
		}
	}
	rescale(1000)
	q.checkpoint(b, s, vpods, 1)
	q.zoneEvent(b, c, s, c.FailZone, 2)
	rescale(300)
	q.moves += othersMoved(s, vpods)
	q.zoneEvent(b, c, s, c.RecoverZone, 3)
	rescale(300)
	q.moves += othersMoved(s, vpods)
	return q
}

// zoneEvent fails or recovers zone-b and waits until the scheduler sees it.
func (q *qualityStats) zoneEvent(b *testing.B, c *memcluster.Cluster, s *Scheduler, f func(string) error, want int) {
	b.Helper()
	if err := f("zone-b"); err != nil {
		b.Fatal(err)
	}
	err := c.WaitFor(benchCtx(), func() bool {
		n := 0
		s.withState(func(st *state.State) { n = len(st.SchedulableZones()) })
		return n == want
	})
	if err != nil {
		b.Fatal(err)
	}
}

// checkpoint records the pods used against the bound and checks that no
// source's placements changed behind its back.
func (q *qualityStats) checkpoint(b *testing.B, s *Scheduler, vpods []*benchVPod, phase int) {
	var used, total int64
	s.withState(func(st *state.State) {
		for ord := int32(0); ord < st.Replicas(); ord++ {
			if u := st.Used(ord); u > 0 {
				used++
				total += int64(u)
			}
		}
	})
	bound := (total + benchCapacity - 1) / benchCapacity
	if os.Getenv("QDEBUG") != "" {
		partial := map[string][]int32{}
		s.withState(func(st *state.State) {
			for ord := int32(0); ord < st.Replicas(); ord++ {
				if u := st.Used(ord); u > 0 && u < benchCapacity {
					info, _ := st.Pod(ord)
					partial[info.Node] = append(partial[info.Node], u)
				}
			}
		})
		fmt.Printf("checkpoint: used %d bound %d total %d partial %v\n", used, bound, total, partial)
	}
	q.podsOverBound[phase] = used - bound
	q.moves += othersMoved(s, vpods)
}

// othersMoved counts the vreplicas whose place in the scheduler's state
// differs from what their source committed.
func othersMoved(s *Scheduler, vpods []*benchVPod) int64 {
	var n int64
	s.withState(func(st *state.State) {
		for _, v := range vpods {
			got, _ := st.Placements(v.key)
			n += movedBy(v.placements, got) + movedBy(got, v.placements)
		}
	})
	return n
}

func BenchmarkPlacementQuality(b *testing.B) {
	for _, prof := range qualityProfiles {
		b.Run(prof.name, func(b *testing.B) {
			var q qualityStats
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				c := unevenCluster(b)
				b.StartTimer()
				q = qualityRun(b, c, prof)
				b.StopTimer()
				c.Shutdown()
				b.StartTimer()
			}
			b.ReportMetric(100*float64(q.uneven)/float64(max(q.evenPossible, 1)), "uneven-%")
			b.ReportMetric(float64(q.skewRoomMax), "skew-room-max")
			b.ReportMetric(float64(q.skewHealthyMax), "skew-healthy-max")
			b.ReportMetric(float64(q.podsOverBound[0]), "pods-over-bound")
			b.ReportMetric(float64(q.podsOverBound[1]), "pods-over-bound-rescaled")
			b.ReportMetric(float64(q.moves), "moves")
			b.ReportMetric(float64(q.placeTime.Nanoseconds())/float64(q.placeCalls), "place-ns/call")
			b.ReportMetric(float64(q.rescaleTime.Nanoseconds())/float64(q.rescaleCalls), "rescale-ns/call")
			b.ReportMetric(float64(q.placeCPU.Nanoseconds())/float64(q.placeCalls), "place-cpu-ns/call")
			b.ReportMetric(float64(q.rescaleCPU.Nanoseconds())/float64(q.rescaleCalls), "rescale-cpu-ns/call")
		})
	}
}
