package autoscaler

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/statefulset"
)

// Growth from zero: many sources are created while the StatefulSet has no
// replicas, the autoscaler grows it, and kube-scheduler binds the new pods
// one at a time, so that sources are scheduled while only some zones have a
// pod. With EvenZoneSpread (MaxSkew 1) in the scheduler profile every source
// must end fully placed within one vreplica across the three zones (and
// stay so at every step: running vreplicas are never rebalanced, so an
// uneven placement made early would stay). With the default profile, which
// spreads only over the zones that already host a pod, the first sources
// pile into the zone bound first; that run is only logged.

const (
	growthCapacity    = 10
	growthMaxReplicas = 60
	growthSeed        = 20261121
	// growthMaxIters bounds the simulation: each iteration binds at most
	// one pod, and the cluster needs about 20.
	growthMaxIters = 200
)

// growthEvenZoneSpread is config-scheduler with EvenZoneSpread as a
// predicate; the priorities key is absent, so the default priorities apply.
var growthEvenZoneSpread = map[string]string{
	"predicates": `[{"Name": "PodFitsResources"}, {"Name": "EvenZoneSpread", "Args": {"MaxSkew": 1}}]`,
}

// bindOrder picks, among the pods that exist and are not bound yet
// (ascending ordinals), the one kube-scheduler binds next.
type bindOrder func(rng *rand.Rand, unbound []int32, zoneOf func(int32) string) int32

// bindByOrdinal binds the lowest ordinal first, as with the OrderedReady pod
// management policy.
func bindByOrdinal(_ *rand.Rand, unbound []int32, _ func(int32) string) int32 { return unbound[0] }

// bindShuffled binds any pending pod, as with the Parallel policy.
func bindShuffled(rng *rand.Rand, unbound []int32, _ func(int32) string) int32 {
	return unbound[rng.Intn(len(unbound))]
}

// bindZoneByZone binds every pending pod of the first zone (by name; lowest
// ordinal first) before those of the next: the zones get their pods as
// unevenly as possible while the scale-up is in flight, as when the other
// zones lack room for a while under a ScheduleAnyway spread constraint.
func bindZoneByZone(_ *rand.Rand, unbound []int32, zoneOf func(int32) string) int32 {
	best := unbound[0]
	for _, ord := range unbound[1:] {
		if zoneOf(ord) < zoneOf(best) {
			best = ord
		}
	}
	return best
}

type growthSource struct {
	name      string
	vreplicas int32
}

// growthSources draws the sources: 20 to 30 of them, wanting 1 to 12
// vreplicas each.
func growthSources(seed int64) []growthSource {
	rng := rand.New(rand.NewSource(seed))
	out := make([]growthSource, 20+rng.Intn(11))
	for i := range out {
		out[i] = growthSource{name: fmt.Sprintf("src-%02d", i), vreplicas: 1 + int32(rng.Intn(12))}
	}
	return out
}

// newGrowthEnv is newEnv on a cluster of 3 zones × 2 nodes whose pods are
// created unbound (PodNodes lists "" for every ordinal the autoscaler may
// ask for): the test binds them itself, one at a time.
func newGrowthEnv(t *testing.T, profiles config.ProfilesSource) *asEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.NewNop().Sugar()))
	c, err := memcluster.New(ctx, memcluster.Options{
		Zones: memcluster.DefaultZones, NodesPerZone: 2, Replicas: 0, Capacity: growthCapacity,
		PodNodes: make([]string, growthMaxReplicas),
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &asEnv{t: t, ctx: ctx, c: c, src: memcluster.NewSources(), rec: record.NewFakeRecorder(1000), clk: c.Clock(),
		results: map[types.NamespacedName][][]vsched.Placement{}}
	cfg := config.DefaultAutoscalerConfig()
	cfg.MinReplicas = 0
	cfg.MaxReplicas = growthMaxReplicas
	e.cfg.Store(cfg)
	e.s, err = statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: growthCapacity,
		Lister: e.src.List, ListerSynced: e.src.HasSynced, Informers: statefulset.InformersFromFactory(c.InformerFactory()), Profiles: profiles,
		AlwaysLeader: true, Clock: c.Clock(), Requeue: e.requeued.add,
		DrainMoveLimit: config.AutoscalerSource(e.cfg.Load).DrainMoveLimit,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.a, err = New(ctx, Options{
		Scheduler: e.s, Client: c.Client(), Recorder: e.rec, Config: e.cfg.Load, Clock: c.Clock(),
		Cache:   CacheFromFactory(c.InformerFactory()),
		Requeue: func(_ context.Context, k types.NamespacedName) error { e.evicted.add(k); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	return e
}

// growthWorld reads the cluster as the API server has it: which pods
// exist, where they are bound, and in which zone each node is.
type growthWorld struct {
	spec       int32
	nodeZone   map[string]string
	podNode    map[int32]string // existing pods; "" when unbound
	zones      []string
	placements map[string][]vsched.Placement
}

func readGrowthWorld(e *asEnv, sources []growthSource) growthWorld {
	e.t.Helper()
	w := growthWorld{spec: e.specReplicas(), nodeZone: map[string]string{}, podNode: map[int32]string{},
		zones: e.c.Zones(), placements: map[string][]vsched.Placement{}}
	for _, n := range e.c.Nodes() {
		w.nodeZone[n.Name] = n.Zone
	}
	ords, err := e.c.PodOrdinals()
	if err != nil {
		e.t.Fatal(err)
	}
	for _, ord := range ords {
		p, err := e.c.Pod(ord)
		if err != nil {
			e.t.Fatal(err)
		}
		w.podNode[ord] = p.Spec.NodeName
	}
	for _, s := range sources {
		w.placements[s.name] = e.placementsOf(s.name)
	}
	return w
}

// zoneCounts is the source's vreplicas per zone, every zone listed.
func (w growthWorld) zoneCounts(ps []vsched.Placement) (map[string]int32, error) {
	out := map[string]int32{}
	for _, z := range w.zones {
		out[z] = 0
	}
	for _, p := range ps {
		ord, err := vsched.OrdinalFromPodName(p.PodName)
		if err != nil {
			return nil, err
		}
		node, ok := w.podNode[ord]
		if !ok || node == "" {
			return nil, fmt.Errorf("placement %s=%d is on a pod that does not exist or is not bound", p.PodName, p.VReplicas)
		}
		out[w.nodeZone[node]] += p.VReplicas
	}
	return out, nil
}

func zoneSkew(counts map[string]int32) int32 {
	first := true
	var lo, hi int32
	for _, n := range counts {
		if first {
			lo, hi, first = n, n, false
		}
		lo, hi = min(lo, n), max(hi, n)
	}
	return hi - lo
}

// unevenSources lists, per source whose zone skew exceeds maxSkew, its
// vreplicas per zone; and the worst skew of all.
func (w growthWorld) unevenSources(t *testing.T, maxSkew int32) (map[string]map[string]int32, int32, string) {
	t.Helper()
	out := map[string]map[string]int32{}
	var worst int32
	worstName := ""
	names := make([]string, 0, len(w.placements))
	for name := range w.placements {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		counts, err := w.zoneCounts(w.placements[name])
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		s := zoneSkew(counts)
		if s > worst {
			worst, worstName = s, fmt.Sprintf("%s %v", name, counts)
		}
		if s > maxSkew {
			out[name] = counts
		}
	}
	return out, worst, worstName
}

// checkPods asserts that every placement is on an existing pod, bound to a
// node, below spec.replicas, and that no pod holds more than its capacity.
// It returns the vreplicas held per ordinal.
func (w growthWorld) checkPods(t *testing.T, step string) map[int32]int32 {
	t.Helper()
	perOrd := map[int32]int32{}
	perPod := map[string]int32{}
	var misplaced []string
	names := make([]string, 0, len(w.placements))
	for name := range w.placements {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, p := range w.placements[name] {
			perPod[p.PodName] += p.VReplicas
			ord, err := vsched.OrdinalFromPodName(p.PodName)
			node, exists := w.podNode[ord]
			if err != nil || !exists || node == "" || ord >= w.spec {
				misplaced = append(misplaced, fmt.Sprintf("%s: %s=%d", name, p.PodName, p.VReplicas))
				continue
			}
			perOrd[ord] += p.VReplicas
		}
	}
	if len(misplaced) > 0 {
		t.Errorf("after %s: placements on pods that do not exist, are not bound, or are at or above the %d replicas: %s",
			step, w.spec, strings.Join(misplaced, ", "))
	}
	over := map[string]int32{}
	for pod, n := range perPod {
		if n > growthCapacity {
			over[pod] = n
		}
	}
	if d := cmp.Diff(map[string]int32{}, over); d != "" {
		t.Errorf("after %s: pods over capacity %d (-want +got):\n%s", step, growthCapacity, d)
	}
	return perOrd
}

// checkPlaced asserts that every source holds what it wants.
func (w growthWorld) checkPlaced(t *testing.T, sources []growthSource) {
	t.Helper()
	want := map[string]int32{}
	got := map[string]int32{}
	for _, s := range sources {
		want[s.name] = s.vreplicas
		got[s.name] = vsched.TotalVReplicas(w.placements[s.name])
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("vreplicas placed per source (-want +got):\n%s", d)
	}
}

// queued is how many keys wait in the queue.
func queued(q *keyQueue) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.keys)
}

type growthResult struct {
	iterations, binds, scaleUps int
	finalReplicas               int32
	// worstSkew is the largest zone skew of any source at any step,
	// finalSkew the largest once settled.
	worstSkew, finalSkew     int32
	worstSource, finalSource string
}

// runGrowth creates the sources while the StatefulSet has no replicas (the
// last late ones later, one per iteration from the first bound pod on) and
// plays the controllers until nothing changes: the source controller
// (Schedule and status write for every requeued source), the autoscaler
// (one cycle per iteration, as its triggers would run it), the StatefulSet
// controller (creating the pods spec.replicas asks for, unbound) and
// kube-scheduler (binding one pending pod per iteration, on the node the
// default rule of memcluster picks: ordinal i goes to the i-th node in
// zone-interleaved order, round-robin over the zones as a zone topology
// spread constraint would). After every round of Schedule calls the
// placements are checked (existing, bound pods below spec.replicas, none
// over capacity), and with maxSkew > 0 the zone skew of every source; once
// settled, that every source is fully placed.
func runGrowth(t *testing.T, e *asEnv, sources []growthSource, order bindOrder, maxSkew int32, late int) growthResult {
	t.Helper()
	rng := rand.New(rand.NewSource(growthSeed))
	var res growthResult
	created := 0
	create := func() {
		t.Helper()
		s := sources[created]
		if _, err := e.src.Create(e.key(s.name), s.vreplicas); err != nil {
			t.Fatal(err)
		}
		e.requeued.add(e.key(s.name))
		created++
	}
	for created < len(sources)-late {
		create()
	}
	if e.specReplicas() != 0 {
		t.Fatalf("the StatefulSet starts with %d replicas, want 0", e.specReplicas())
	}

	// defaultNode is where memcluster's default rule binds the ordinal.
	var interleaved []string
	for round := 0; ; round++ {
		added := false
		for _, z := range e.c.Zones() {
			if nodes := e.c.NodesInZone(z); round < len(nodes) {
				interleaved, added = append(interleaved, nodes[round]), true
			}
		}
		if !added {
			break
		}
	}
	nodeZone := map[string]string{}
	for _, n := range e.c.Nodes() {
		nodeZone[n.Name] = n.Zone
	}
	defaultNode := func(ord int32) string { return interleaved[int(ord)%len(interleaved)] }
	zoneOf := func(ord int32) string { return nodeZone[defaultNode(ord)] }

	check := func(step string) (int32, string) {
		t.Helper()
		w := readGrowthWorld(e, sources[:created])
		w.checkPods(t, step)
		uneven, worst, worstName := w.unevenSources(t, max(maxSkew, 1))
		if worst > res.worstSkew {
			res.worstSkew, res.worstSource = worst, worstName+" after "+step
		}
		if maxSkew > 0 {
			if d := cmp.Diff(map[string]map[string]int32{}, uneven); d != "" {
				t.Fatalf("after %s: sources with a zone skew above %d (-want +got):\n%s", step, maxSkew, d)
			}
		}
		return worst, worstName
	}

	settled := false
	for res.iterations = 1; res.iterations <= growthMaxIters; res.iterations++ {
		e.step(time.Second)
		// Late sources: one per iteration once the first pod is bound.
		if res.binds > 0 && created < len(sources) {
			create()
		}
		// The source controller.
		e.work()
		check(fmt.Sprintf("iteration %d: sources scheduled", res.iterations))
		// The autoscaler.
		d := e.reconcile()
		if d.Action == ActionScaleUp && d.Written {
			res.scaleUps++
			t.Logf("iteration %d: scaled %d -> %d (%s)", res.iterations, d.Current, d.Target, d.Reason)
		}
		// The StatefulSet controller: pods follow spec.replicas, unbound.
		e.settle()
		// kube-scheduler: one pending pod at a time.
		ords, err := e.c.PodOrdinals()
		if err != nil {
			t.Fatal(err)
		}
		var unbound []int32
		for _, ord := range ords {
			p, err := e.c.Pod(ord)
			if err != nil {
				t.Fatal(err)
			}
			if p.Spec.NodeName == "" {
				unbound = append(unbound, ord)
			}
		}
		bound := false
		if len(unbound) > 0 {
			ord := order(rng, unbound, zoneOf)
			if err := e.c.BindPod(ord, defaultNode(ord)); err != nil {
				t.Fatal(err)
			}
			e.sync()
			res.binds++
			bound = true
		}
		if !bound && !d.Written && created == len(sources) && e.pending() == 0 && queued(&e.requeued) == 0 && queued(&e.evicted) == 0 {
			settled = true
			break
		}
	}
	if !settled {
		t.Fatalf("not settled after %d iterations: %d pending, replicas %d", growthMaxIters, e.pending(), e.specReplicas())
	}
	// Settled: another cycle changes nothing.
	if d := e.reconcile(); d.Written || d.Action == ActionScaleUp {
		t.Errorf("a cycle after settling: %s %d -> %d (%s)", d.Action, d.Current, d.Target, d.Reason)
	}
	w := readGrowthWorld(e, sources)
	w.checkPlaced(t, sources)
	// The scheduler counts what the statuses say: nothing is left only
	// reserved.
	if d := cmp.Diff(w.checkPods(t, "settling"), e.usedOn()); d != "" {
		t.Errorf("vreplicas per ordinal, statuses (-) against the scheduler's state (+):\n%s", d)
	}
	res.finalSkew, res.finalSource = check("settling")
	res.finalReplicas = w.spec
	return res
}

// TestGrowthFromZeroKeepsZoneSpread: with EvenZoneSpread, every source
// created while the StatefulSet grows from 0 ends fully placed, within one
// vreplica across the three zones, however the new pods are bound one at a
// time; with the default profile the run is logged only.
func TestGrowthFromZeroKeepsZoneSpread(t *testing.T) {
	sources := growthSources(growthSeed)
	var total int32
	for _, s := range sources {
		total += s.vreplicas
	}
	t.Logf("%d sources wanting %d vreplicas (capacity %d per pod)", len(sources), total, growthCapacity)

	orders := []struct {
		name  string
		order bindOrder
	}{
		{"ordinal order", bindByOrdinal},
		{"any order", bindShuffled},
		{"zone by zone", bindZoneByZone},
	}
	profiles := []struct {
		name  string
		sched map[string]string // nil: the default policy
		// maxSkew is asserted for every source at every step; 0 asserts
		// nothing about the spread.
		maxSkew int32
	}{
		{"EvenZoneSpread", growthEvenZoneSpread, 1},
		{"default profile", nil, 0},
	}
	creations := []struct {
		name string
		late int // sources created one per iteration while pods bind
	}{
		{"all created at 0 replicas", 0},
		{"a third created while pods bind", len(sources) / 3},
	}
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			for _, c := range creations {
				t.Run(c.name, func(t *testing.T) {
					for _, o := range orders {
						t.Run(o.name, func(t *testing.T) {
							e := newGrowthEnv(t, profilesFromData(t, p.sched, nil))
							res := runGrowth(t, e, sources, o.order, p.maxSkew, c.late)
							t.Logf("settled after %d iterations: %d pods bound one at a time, %d scale-up(s), %d replicas",
								res.iterations, res.binds, res.scaleUps, res.finalReplicas)
							t.Logf("worst zone skew: %d at the end (%s), %d at any step (%s)",
								res.finalSkew, res.finalSource, res.worstSkew, res.worstSource)
						})
					}
				})
			}
		})
	}
}
