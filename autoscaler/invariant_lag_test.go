package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/statefulset"
)

// TestInvariantUnderLag drives two scheduler instances (A and B, one
// leading at a time) and their autoscalers on a memcluster through random
// operations: the StatefulSet deleted (orphaning its pods or not) and
// created again (statefulSetStep), batches of concurrent source-controller workers (Schedule,
// then a status write through memcluster.Sources that may fail or
// conflict, then Observe), informer events held back and released per kind,
// a source lister frozen or not synced yet, scheduler restarts, leader
// changes (A->B->A included), autoscaler cycles that write the size
// through the scale subresource and the StatefulSet controller following
// it, compaction, profile and autoscaler configuration reloads, node
// failures, resyncs and the clock moving past reservation TTLs and
// stabilization windows.
//
// What it checks, from the committed statuses (Sources.Get, the API
// server's truth, never a lagging lister), after every operation:
//
//   - capacity: on every pod, the vreplicas all committed statuses name
//     sum to at most the capacity, and what they cost (lagCost: a third
//     of the sources cost 400Mi of memory and 100m of CPU per vreplica,
//     a third 100Mi and 400m, a third nothing) to at most the pod's
//     memory and CPU (lagPodResources), in every dimension;
//   - size: no committed status names an ordinal at or above the
//     StatefulSet's spec.replicas as the API server holds it. Operations
//     are checked once complete: every worker has written or given up,
//     and an autoscaler cycle has returned, so its size write (or its
//     decision not to write) is complete. Leadership moves only between
//     operations, so no decision of an earlier term is still being
//     written: two leaders deciding at once (obs 9 of issue 10) is out of
//     scope, and nothing is exempt from the check;
//
// and on every call and every write, as it happens:
//
//   - accounting: a Schedule answer's placements plus its pending count
//     equal the vreplicas of the version it was given;
//   - moves: a written status never holds fewer vreplicas than
//     min(what the previous status held on ordinals below spec.replicas,
//     what the written version wants): a vreplica that moves is in the
//     same write as its replacement, never missing from the status.
//
// Every run follows its seed except for the interleaving of concurrent
// workers: each step's operation is drawn from a source seeded by the
// seed and the step (stepRand), so step N is the same operation in every
// run even when the interleaving changed what the queue held. A failure
// names the seed and the operation and prints the tail of the run's trace
// (lagTraceLog: the operations, writes, autoscaler cycles and resyncs
// that led to it, and the leader's view); replay it with
// VSCHED_INVARIANT_SEED=<seed> (VSCHED_INVARIANT_TRACE=1 and -v log every
// line of the trace as it happens). VSCHED_INVARIANT_SEEDS=<n> runs seeds 1..n (the soak: make
// soak), VSCHED_INVARIANT_OPS the operations per seed.
func TestInvariantUnderLag(t *testing.T) {
	seeds, ops := lagPlan(t)
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			w := newLagWorld(t, seed)
			w.run(ops)
		})
	}
}

// Injections that trigger a defect of issue 10 that is being fixed
// elsewhere: while true, the injection is left out, so the test stays
// green on a code base that still has the defect. Flip each to false once
// its fix is merged; the invariants themselves are never relaxed.
const (
	// knownDefectObs1: a scheduler loads from a source lister that has
	// not synced (it lists nothing, without an error). Left out: the
	// lister is never made unsynced. Flip once Config.ListerSynced is
	// wired (see lagSchedulerConfig).
	knownDefectObs1 = false
	// knownDefectObs2: a shrink the scheduler has not seen yet. Left out:
	// StatefulSet events are never held.
	knownDefectObs2 = false
	// knownDefectObs3: the autoscaler's snapshot against a concurrent
	// Schedule. Left out: autoscaler cycles never run concurrently with
	// the workers.
	knownDefectObs3 = false
	// knownDefectObs4: an unwritten reservation survives a leader change
	// (A->B->A). Left out: an instance leads again only after the
	// reservation TTL has passed since it last led.
	knownDefectObs4 = false
	// knownDefectObs6: an older version overwrites a newer reservation.
	// Left out: two workers of a batch never take the same source, and a
	// worker never reads the source from the (possibly lagging) lister,
	// only from the API server.
	knownDefectObs6 = false
	// knownDefectRecreate: the StatefulSet deleted and created again
	// (statefulSetStep, issue 20). At 200 seeds it found a restore
	// written from a lagging read shrinking the StatefulSet (seed 3,
	// "size: src-09 holds 1 on adapter-10, at or beyond spec.replicas
	// 9"); fixed, so it is injected.
	knownDefectRecreate = false
)

// lagTrace logs every operation, for replaying a failing seed
// (VSCHED_INVARIANT_TRACE=1, with -v).
var lagTrace = os.Getenv("VSCHED_INVARIANT_TRACE") != ""

const (
	lagCapacity    = 4
	lagMaxReplicas = 12
	lagSources     = 10 // names in the pool
	lagMaxVReps    = 5
	lagTTL         = time.Minute
)

// lagPlan reads the seeds and the operations per seed: 4 seeds of 2,000
// operations by default, 2 of 300 with -short.
func lagPlan(t *testing.T) ([]int64, int) {
	ops, nseeds := 2000, 4
	if testing.Short() {
		ops, nseeds = 300, 2
	}
	if v := os.Getenv("VSCHED_INVARIANT_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("VSCHED_INVARIANT_OPS=%q: want a positive number", v)
		}
		ops = n
	}
	if v := os.Getenv("VSCHED_INVARIANT_SEED"); v != "" {
		seed, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("VSCHED_INVARIANT_SEED=%q: want a number", v)
		}
		return []int64{seed}, ops
	}
	if v := os.Getenv("VSCHED_INVARIANT_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("VSCHED_INVARIANT_SEEDS=%q: want a positive number", v)
		}
		nseeds = n
	}
	seeds := make([]int64, nseeds)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	return seeds, ops
}

// lagInstance is one controller process: a scheduler and its autoscaler.
type lagInstance struct {
	name string
	s    *statefulset.Scheduler
	a    *Autoscaler
	// ledAt is when this process last stopped leading; zero if it never
	// led.
	ledAt time.Time
	// answers are its last Schedule answers (checkShed).
	answers sync.Map
}

// lagBucket owns every key: leadership of the StatefulSet.
var lagBucket = namedBucket("vsched-lag")

// namedBucket owns every key, under its own name.
type namedBucket string

func (b namedBucket) Name() string                  { return string(b) }
func (b namedBucket) Has(types.NamespacedName) bool { return true }

type lagWorld struct {
	t     *testing.T
	seed  int64
	rng   *rand.Rand
	ctx   context.Context
	c     *memcluster.Cluster
	src   *memcluster.Sources
	inst  [2]*lagInstance
	lead  int // index of the leading instance
	queue keyQueue
	// gone is the StatefulSet deleted and recreated (statefulSetStep).
	// A batch's workers read and end it concurrently: goneMu guards it.
	gone   lagGone
	goneMu sync.Mutex

	profiles    []config.ProfilesSource
	profile     atomic.Int32
	autoscaling atomic.Pointer[config.AutoscalerConfig]

	step  int
	op    string
	stats map[string]int
	// trace is the run's recent operations and writes (tracef).
	trace lagTraceLog

	// Outcomes counted across goroutines, for the summary.
	calls, pendingCalls, retries, writes, failedWrites atomic.Int64
	scaleUps, scaleDowns, autoscaleErrors              atomic.Int64
	compactions, evictions                             atomic.Int64
	hotCycles, shed                                    atomic.Int64
	shedChecked                                        atomic.Int64

	mu     sync.Mutex
	failed []string // invariant violations, from any goroutine
}

func newLagWorld(t *testing.T, seed int64) *lagWorld {
	t.Helper()
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.NewNop().Sugar()))
	c, err := memcluster.New(ctx, memcluster.Options{Zones: memcluster.DefaultZones, NodesPerZone: 2, Replicas: 4, Capacity: lagCapacity})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	def, err := config.ProfilesFromConfigMaps(ctx, inTree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &lagWorld{
		t: t, seed: seed, rng: rand.New(rand.NewSource(seed)), ctx: ctx, c: c, src: memcluster.NewSources(),
		profiles: []config.ProfilesSource{def, packProfiles(t), profilesFromData(t, asKafkaHA, designDescheduler)},
		stats:    map[string]int{},
	}
	w.autoscaling.Store(w.randomAutoscalerConfig())
	for i := range w.inst {
		w.inst[i] = w.newInstance(string(rune('A' + i)))
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	w.promote(0)
	return w
}

// lagSchedulerConfig is the configuration of every scheduler of the test.
// When Config.ListerSynced lands, set it here to w.src.HasSynced, and flip
// knownDefectObs1.
func (w *lagWorld) lagSchedulerConfig() statefulset.Config {
	return statefulset.Config{
		Namespace: w.c.Namespace(), Name: w.c.StatefulSetName(), Capacity: lagCapacity,
		Lister: w.src.List, ListerSynced: w.src.HasSynced, FreshLister: w.src.ListFresh, Informers: statefulset.InformersFromFactory(w.c.InformerFactory()),
		Profiles:       func() config.Profiles { return w.profiles[w.profile.Load()]() },
		Requeue:        w.queue.add,
		ReservationTTL: lagTTL,
		PodResources:   lagPodResources,
		Clock:          w.c.Clock(),
		DrainMoveLimit: config.AutoscalerSource(w.autoscaling.Load).DrainMoveLimit,
	}
}

func (w *lagWorld) newInstance(name string) *lagInstance {
	w.t.Helper()
	est := w.lagEstimates()
	scfg := w.lagSchedulerConfig()
	scfg.CostEstimates = est
	s, err := statefulset.New(w.ctx, scfg)
	if err != nil {
		w.t.Fatal(err)
	}
	a, err := New(w.ctx, Options{
		Scheduler: s, Client: w.c.Client(), Config: w.autoscaling.Load, Clock: w.c.Clock(),
		Cache: CacheFromFactory(w.c.InformerFactory()),
		Requeue: func(_ context.Context, k types.NamespacedName) error {
			w.evictions.Add(1)
			w.queue.add(k)
			return nil
		},
		MeterProvider: noop.NewMeterProvider(),
		PodUsage:      w.c.UsageReader(), CostEstimates: est,
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return &lagInstance{name: name, s: s, a: a}
}

func (w *lagWorld) leader() *lagInstance { return w.inst[w.lead] }

func (w *lagWorld) promote(i int) {
	if err := w.inst[i].s.Promote(lagBucket, nil); err != nil {
		w.t.Fatal(err)
	}
	w.lead = i
}

func (w *lagWorld) count(op string) {
	w.stats[op]++
	if w.op != "" {
		w.op += ", "
	}
	w.op += op
}

// failf records a violation; the driver stops after the operation.
func (w *lagWorld) failf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failed = append(w.failed, fmt.Sprintf(format, args...))
}

func (w *lagWorld) run(ops int) {
	for w.step = 1; w.step <= ops; w.step++ {
		w.op = ""
		w.rng = stepRand(w.seed, w.step)
		w.tracef("step %d begins", w.step)
		w.randomOp()
		if err := w.c.Sync(w.ctx); err != nil {
			w.t.Fatalf("seed %d step %d (%s): %v", w.seed, w.step, w.op, err)
		}
		w.tracef("step %d: %s (spec.replicas %d, %s counts %d%s)", w.step, w.op, w.specReplicas(), w.leader().name, w.leader().s.Replicas(), w.heldKinds())
		w.checkCommitted()
		w.mu.Lock()
		failed := w.failed
		w.mu.Unlock()
		if len(failed) > 0 {
			w.t.Fatalf("seed %d, step %d (%s): %s\nreplay: VSCHED_INVARIANT_SEED=%d VSCHED_INVARIANT_OPS=%d go test ./autoscaler -run TestInvariantUnderLag\ntrace (last %d lines):\n%s%s",
				w.seed, w.step, w.op, strings.Join(failed, "\n"), w.seed, w.step, lagTraceTail, w.trace.tail(lagTraceTail), w.leaderView())
		}
	}
	w.t.Logf("seed %d: %d operations (%v); %d Schedule calls (%d pending, %d retryable errors), %d status writes (%d failed), %d scale-ups and %d scale-downs written (%d failed), %d compaction cycles, %d evictions",
		w.seed, ops, w.stats, w.calls.Load(), w.pendingCalls.Load(), w.retries.Load(), w.writes.Load(), w.failedWrites.Load(),
		w.scaleUps.Load(), w.scaleDowns.Load(), w.autoscaleErrors.Load(), w.compactions.Load(), w.evictions.Load())
	w.t.Logf("seed %d: %d cycles saw hot pods, %d vreplicas shed, %d shedding answers checked", w.seed, w.hotCycles.Load(), w.shed.Load(), w.shedChecked.Load())
}

func (w *lagWorld) randomOp() {
	switch r := w.rng.Intn(100); {
	case r < 39:
		w.count("batch")
		w.batch()
	case r < 45:
		w.usageStep()
	case r < 55:
		w.count("autoscale")
		w.autoscale(w.leader())
		if w.rng.Intn(3) > 0 {
			w.settle()
		}
	case r < 58:
		w.statefulSetStep()
	case r < 68:
		w.lag()
	case r < 72:
		w.commitFaults()
	case r < 79:
		w.nodeFault()
	case r < 83:
		w.count("clock")
		w.c.Clock().Step(time.Duration(w.rng.Intn(int(2*lagTTL/time.Second))) * time.Second)
	case r < 86:
		w.count("resync")
		w.resync(w.leader())
	case r < 89:
		w.restart(w.rng.Intn(2))
	case r < 94:
		w.changeLeader()
	case r < 97:
		w.reload()
	default:
		w.sourceOrPodFault()
	}
}

func lagKey(i int) types.NamespacedName {
	return types.NamespacedName{Namespace: "sources", Name: fmt.Sprintf("src-%02d", i)}
}

// lagPodResources is every pod's memory and CPU: two vreplicas of a
// memory-heavy source (lagCost) and two of a CPU-heavy one fit in both,
// while its slots (lagCapacity) would take four of either.
var lagPodResources = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi"), corev1.ResourceCPU: resource.MustParse("1")}

// lagCost is what one vreplica of the source costs: sources src-00,
// src-03, ... 400Mi of memory and 100m of CPU, src-01, src-04, ... 100Mi
// and 400m, the others nothing.
func lagCost(k types.NamespacedName) corev1.ResourceList {
	var i int
	fmt.Sscanf(k.Name, "src-%d", &i)
	switch i % 3 {
	case 0:
		return corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("400Mi"), corev1.ResourceCPU: resource.MustParse("100m")}
	case 1:
		return corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100Mi"), corev1.ResourceCPU: resource.MustParse("400m")}
	}
	return nil
}

// batch runs 2 to 5 workers at once, each reconciling a source as its
// controller would: the queue's keys first (requeues and evictions), then
// random sources, some created or resized first. With !knownDefectObs3
// an autoscaler cycle, and sometimes a resync, run alongside.
func (w *lagWorld) batch() {
	// What runs is drawn before the queue is read: how many draws the
	// rest takes depends on what the queue holds.
	n := 2 + w.rng.Intn(4)
	withAutoscale := !knownDefectObs3 && w.rng.Intn(3) == 0
	withResync := w.rng.Intn(4) == 0
	keys := w.queue.take()
	w.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	taken := map[types.NamespacedName]bool{}
	var picked []types.NamespacedName
	for _, k := range keys {
		if len(picked) < n && (!knownDefectObs6 || !taken[k]) {
			picked, taken[k] = append(picked, k), true
		} else {
			w.queue.add(k)
		}
	}
	for tries := 0; len(picked) < n && tries < 20; tries++ {
		k := lagKey(w.rng.Intn(lagSources))
		if knownDefectObs6 && taken[k] {
			continue
		}
		taken[k] = true
		w.touchSource(k)
		picked = append(picked, k)
	}
	inst := w.leader()
	var wg sync.WaitGroup
	for _, k := range picked {
		wg.Add(1)
		go func(k types.NamespacedName, observe, cached bool) {
			defer wg.Done()
			w.reconcile(inst, k, observe, cached)
		}(k, w.rng.Intn(2) == 0, !knownDefectObs6 && w.rng.Intn(2) == 0)
	}
	if withAutoscale {
		w.count("concurrent autoscale")
		wg.Add(1)
		go func() { defer wg.Done(); w.autoscale(inst) }()
	}
	if withResync {
		w.count("concurrent resync")
		wg.Add(1)
		go func() { defer wg.Done(); w.resync(inst) }()
	}
	wg.Wait()
}

// touchSource creates the source, or resizes it two times in three.
func (w *lagWorld) touchSource(k types.NamespacedName) {
	vreps := int32(w.rng.Intn(lagMaxVReps + 1))
	if _, err := w.src.Get(k); apierrors.IsNotFound(err) {
		if _, err := w.src.Create(k, vreps); err != nil {
			w.t.Fatal(err)
		}
		if cost := lagCost(k); cost != nil {
			if _, err := w.src.SetCost(k, cost); err != nil {
				w.t.Fatal(err)
			}
		} else {
			w.measureCost(k)
		}
		return
	}
	if w.rng.Intn(3) > 0 {
		if _, err := w.src.Update(k, vreps); err != nil {
			w.t.Fatal(err)
		}
	}
}

// retryable is what a Schedule call may answer without a decision: the
// controller requeues the source. Add new retryable errors here (ErrStale,
// once Schedule refuses decisions on stale versions).
func retryable(err error) bool {
	return errors.Is(err, vsched.ErrNotReady) || errors.Is(err, vsched.ErrNotLeader) || errors.Is(err, vsched.ErrStale)
}

// reconcile is one worker: read (from the lister when cached, as a
// controller reading its informer's cache does), Schedule, check the
// answer, write it, check the write, and (when observe) forward the
// written object to the scheduler as the source informer would.
func (w *lagWorld) reconcile(inst *lagInstance, k types.NamespacedName, observe, cached bool) {
	v, err := w.read(k, cached)
	if err != nil {
		return // deleted, or not in the cache yet
	}
	guard := inst.s.HotGuard()
	ps, err := inst.s.Schedule(w.ctx, v)
	w.calls.Add(1)
	switch {
	case err == nil:
	case vsched.PendingCount(err) > 0:
		w.pendingCalls.Add(1)
	case retryable(err):
		w.tracef("  %s: %s@%s: %v; requeued", inst.name, k.Name, v.GetResourceVersion(), err)
		w.retries.Add(1)
		w.queue.add(k)
		return
	default:
		w.failf("Schedule(%s) on %s: %v", k.Name, inst.name, err)
		return
	}
	if got, want := int64(vsched.TotalVReplicas(ps))+int64(vsched.PendingCount(err)), int64(v.GetVReplicas()); got != want {
		w.failf("accounting: %s@%s wants %d; %s answered [%s] with %d pending", k.Name, v.GetResourceVersion(), want, inst.name, short(ps), vsched.PendingCount(err))
	}
	w.checkShed(inst, v, ps, guard)
	if slices.Equal(ps, v.GetPlacements()) {
		return
	}
	err = w.src.CommitPlacements(k, v.GetResourceVersion(), ps)
	w.tracef("  %s: %s@%s wants %d: [%s] -> [%s], write: %v", inst.name, k.Name, v.GetResourceVersion(), v.GetVReplicas(), short(v.GetPlacements()), short(ps), err)
	w.writes.Add(1)
	if err != nil {
		w.failedWrites.Add(1)
		w.queue.add(k) // a conflict or a transient error: requeue
		return
	}
	w.checkMove(k, v, ps)
	if observe {
		if nv, err := w.src.Get(k); err == nil {
			inst.s.Observe(nv)
		}
	}
}

func (w *lagWorld) read(k types.NamespacedName, cached bool) (vsched.VPod, error) {
	if !cached {
		return w.src.Get(k)
	}
	list, err := w.src.List()
	if err != nil {
		return nil, err
	}
	for _, v := range list {
		if v.GetKey() == k {
			return v, nil
		}
	}
	return nil, apierrors.NewNotFound(memcluster.SourceResource, k.String())
}

// checkMove checks a written status against the one it replaced.
func (w *lagWorld) checkMove(k types.NamespacedName, prev vsched.VPod, ps []vsched.Placement) {
	spec := w.specReplicas()
	var running int64
	for _, p := range prev.GetPlacements() {
		if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil && ord < spec {
			running += int64(p.VReplicas)
		}
	}
	floor := min(running, int64(prev.GetVReplicas()))
	if got := int64(vsched.TotalVReplicas(ps)); got < floor {
		w.failf("moves: %s wants %d and held %d below the %d replicas [%s]; the write holds %d [%s]",
			k.Name, prev.GetVReplicas(), running, spec, short(prev.GetPlacements()), got, short(ps))
	}
}

func (w *lagWorld) specReplicas() int32 {
	if n, ok := w.goneReplicas(); ok {
		return n
	}
	set, err := w.c.StatefulSet()
	if err != nil {
		w.t.Fatal(err)
	}
	return *set.Spec.Replicas
}

// checkCommitted checks capacity and size from every committed status.
func (w *lagWorld) checkCommitted() {
	spec := w.specReplicas()
	perPod := map[int32]int64{}
	// use[name][ord] is what the pod's vreplicas cost, in milli-units.
	use := map[corev1.ResourceName]map[int32]int64{}
	holders := map[int32][]string{}
	for i := range lagSources {
		v, err := w.src.Get(lagKey(i))
		if err != nil {
			continue
		}
		for _, p := range v.GetPlacements() {
			ord, err := vsched.OrdinalFromPodName(p.PodName)
			if err != nil {
				w.failf("%s names pod %q", v.GetKey().Name, p.PodName)
				continue
			}
			perPod[ord] += int64(p.VReplicas)
			for name, q := range vsched.VReplicaCost(v) {
				if use[name] == nil {
					use[name] = map[int32]int64{}
				}
				use[name][ord] += int64(p.VReplicas) * q.MilliValue()
			}
			holders[ord] = append(holders[ord], fmt.Sprintf("%s:%d", v.GetKey().Name, p.VReplicas))
			if ord >= spec && p.VReplicas > 0 {
				w.failf("size: %s holds %d on adapter-%d, at or beyond spec.replicas %d", v.GetKey().Name, p.VReplicas, ord, spec)
			}
		}
	}
	ords := make([]int32, 0, len(perPod))
	for ord := range perPod {
		ords = append(ords, ord)
	}
	sort.Slice(ords, func(i, j int) bool { return ords[i] < ords[j] })
	for _, ord := range ords {
		if perPod[ord] > lagCapacity {
			w.failf("capacity: adapter-%d holds %d of %d: %v", ord, perPod[ord], lagCapacity, holders[ord])
		}
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			limit := lagPodResources[name]
			if got := use[name][ord]; got > limit.MilliValue() {
				w.failf("%s: adapter-%d holds %s of %s: %v", name, ord, resource.NewMilliQuantity(got, limit.Format).String(), limit.String(), holders[ord])
			}
		}
	}
}

// autoscale runs one cycle of the instance's autoscaler. A failed write is
// a legitimate outcome (the next cycle retries); what it wrote is checked
// by checkCommitted.
func (w *lagWorld) autoscale(inst *lagInstance) {
	d, err := inst.a.Reconcile(w.ctx)
	w.tracef("  autoscale %s: %s %d -> %d written %v (%s): %v", inst.name, d.Action, d.Current, d.Target, d.Written, d.Reason, err)
	if err == nil && d.Action == ActionCompact {
		w.compactions.Add(1)
	}
	if len(d.HotPods) > 0 {
		w.hotCycles.Add(1)
	}
	w.shed.Add(int64(d.Shed))
	switch {
	case err != nil:
		w.autoscaleErrors.Add(1)
	case d.Written && d.Target > d.Current:
		w.scaleUps.Add(1)
	case d.Written && d.Target < d.Current:
		w.scaleDowns.Add(1)
	}
}

// settle is the StatefulSet controller: the pods follow spec.replicas.
func (w *lagWorld) settle() {
	w.count("settle")
	if _, err := w.c.Settle(); err != nil {
		w.t.Fatal(err)
	}
}

var lagKinds = []memcluster.Kind{memcluster.KindPod, memcluster.KindNode, memcluster.KindStatefulSet}

// lag holds or releases one kind's informer events, or makes the source
// lister lag.
func (w *lagWorld) lag() {
	switch r := w.rng.Intn(10); {
	case r < 6:
		k := lagKinds[w.rng.Intn(len(lagKinds))]
		held, _ := w.c.Held(k)
		switch {
		case held && w.rng.Intn(3) == 0:
			w.count("release some " + k.String())
			w.c.ReleaseN(k, 1+w.rng.Intn(3))
		case held:
			w.count("release " + k.String())
			w.c.Release(k)
		case k == memcluster.KindStatefulSet && knownDefectObs2:
		default:
			w.count("hold " + k.String())
			w.c.Hold(k)
		}
	case r < 8:
		w.count("freeze/thaw lister")
		if w.rng.Intn(2) == 0 {
			w.src.FreezeList()
		} else {
			w.src.ThawList()
		}
	default:
		if knownDefectObs1 {
			return
		}
		synced := w.src.HasSynced()
		w.count(fmt.Sprintf("lister synced %v", !synced))
		w.src.SetSynced(!synced)
	}
}

func (w *lagWorld) commitFaults() {
	n := 1 + w.rng.Intn(3)
	if w.rng.Intn(2) == 0 {
		w.count("fail commits")
		w.src.FailCommits(n, apierrors.NewServiceUnavailable("injected"))
	} else {
		w.count("conflict commits")
		w.src.ConflictCommits(n)
	}
}

// nodeFault cordons or fails a node, or (as often) heals one.
func (w *lagWorld) nodeFault() {
	nodes := w.c.Nodes()
	n := nodes[w.rng.Intn(len(nodes))].Name
	var err error
	switch w.rng.Intn(4) {
	case 0:
		w.count("cordon")
		err = w.c.Cordon(n)
	case 1:
		w.count("fail node")
		err = w.c.FailNode(n)
	default:
		w.count("heal node")
		if err = w.c.Uncordon(n); err == nil {
			err = w.c.RecoverNode(n)
		}
	}
	if err != nil {
		w.t.Fatal(err)
	}
}

// restart replaces an instance by a new process on the same cluster; a
// leading one leads again once restarted. The new process's source
// informer lists afresh: the lister is thawed, and (unless
// knownDefectObs1) not synced until a later operation syncs it. Its pod,
// node and StatefulSet informers are the cluster's, held kinds included,
// as for a controller that replaces its scheduler but keeps its informers.
func (w *lagWorld) restart(i int) {
	w.count("restart " + w.inst[i].name)
	w.src.ThawList()
	if !knownDefectObs1 {
		w.src.SetSynced(false)
	}
	w.inst[i].s.Close()
	w.inst[i] = w.newInstance(w.inst[i].name)
	if i == w.lead {
		w.promote(i)
	}
}

// changeLeader hands leadership to the other instance. With
// knownDefectObs4 an instance that led before leads again only once the
// reservation TTL has passed since. The source lister is left as it is: a frozen one stays frozen across the
// change, and the new term's first load (a Schedule or a resync) must read
// Config.FreshLister rather than it.
func (w *lagWorld) changeLeader() {
	from, to := w.lead, 1-w.lead
	w.count("leader " + w.inst[from].name + "->" + w.inst[to].name)
	clk := w.c.Clock()
	w.inst[from].s.Demote(lagBucket)
	w.inst[from].ledAt = clk.Now()
	if at := w.inst[to].ledAt; knownDefectObs4 && !at.IsZero() && clk.Since(at) <= lagTTL {
		clk.Step(lagTTL + time.Second - clk.Since(at))
	}
	w.promote(to)
}

// reload switches the scheduling profiles and the autoscaler's
// configuration, as edits to their ConfigMaps do.
func (w *lagWorld) reload() {
	p := int32(w.rng.Intn(len(w.profiles)))
	w.count(fmt.Sprintf("reload profile %d", p))
	w.profile.Store(p)
	w.autoscaling.Store(w.randomAutoscalerConfig())
}

func (w *lagWorld) randomAutoscalerConfig() *config.AutoscalerConfig {
	cfg := config.DefaultAutoscalerConfig()
	cfg.MinReplicas = int32(w.rng.Intn(3))
	cfg.MaxReplicas = int32(6 + w.rng.Intn(lagMaxReplicas-5))
	cfg.StabilizationWindow = []time.Duration{0, 30 * time.Second, 2 * time.Minute}[w.rng.Intn(3)]
	cfg.ScaleDownCooldown = []time.Duration{0, time.Minute}[w.rng.Intn(2)]
	cfg.Compaction = w.rng.Intn(3) > 0
	cfg.MaxMovesPerSource = int32(1 + w.rng.Intn(5))
	cfg.MaxMovesPerCycle = int32(2 + w.rng.Intn(20))
	cfg.UnavailablePodGrace = time.Minute
	w.randomHotPods(cfg)
	return cfg
}

func (w *lagWorld) deleteSource() {
	k := lagKey(w.rng.Intn(lagSources))
	if err := w.src.Delete(k); err != nil {
		return
	}
	w.count("delete " + k.Name)
	for _, inst := range w.inst {
		inst.s.Forget(k)
	}
}

// resync runs a resync of the instance, from whatever the lister shows.
func (w *lagWorld) resync(inst *lagInstance) {
	err := inst.s.Resync(w.ctx)
	w.tracef("  resync %s: %v", inst.name, err)
}

// lagGone is the StatefulSet deleted (and perhaps created again, at 0
// replicas as its manifest says, or at the size it had): until the sources
// fit in it again (the autoscaler sizes it back to what they hold), the
// checks hold it to the size it had when it was deleted, which the
// committed statuses were written against. Nothing committed may be lost
// meanwhile (checkMove), and nothing placed beyond that size.
type lagGone struct {
	active bool
	size   int32
}

// statefulSetStep is the StatefulSet controller following spec.replicas,
// or, one time in four, an upgrade deleting the StatefulSet (orphaning its
// pods or not) or creating it again.
func (w *lagWorld) statefulSetStep() {
	if w.rng.Intn(4) > 0 || knownDefectRecreate {
		w.settle()
		return
	}
	if !w.c.StatefulSetExists() {
		n := []int32{0, w.goneSize()}[w.rng.Intn(2)]
		w.count(fmt.Sprintf("create statefulset at %d", n))
		if err := w.c.CreateStatefulSet(n); err != nil {
			w.t.Fatal(err)
		}
		return
	}
	size := w.specReplicas()
	orphan := w.rng.Intn(2) == 0
	w.count(fmt.Sprintf("delete statefulset (orphan %v)", orphan))
	if err := w.c.DeleteStatefulSet(orphan); err != nil {
		w.t.Fatal(err)
	}
	w.setGone(lagGone{active: true, size: size})
}

// goneReplicas is the size the checks hold the StatefulSet to while it is
// gone or back below what the sources hold; ok is false otherwise.
func (w *lagWorld) goneReplicas() (int32, bool) {
	w.goneMu.Lock()
	defer w.goneMu.Unlock()
	if !w.gone.active {
		return 0, false
	}
	set, err := w.c.StatefulSet()
	if err != nil {
		return w.gone.size, true // deleted
	}
	spec := *set.Spec.Replicas
	for i := range lagSources {
		v, err := w.src.Get(lagKey(i))
		if err != nil {
			continue
		}
		for _, p := range v.GetPlacements() {
			if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil && ord >= spec && p.VReplicas > 0 {
				return max(spec, w.gone.size), true
			}
		}
	}
	w.gone.active = false
	return spec, true
}
