package statefulset

import (
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/state"
)

// TestRandomizedInvariants drives one scheduler through thousands of random
// operations (sources created, rescaled, deleted; nodes cordoned, lost and
// recovered; pods deleted, recreated unbound, bound, drained; the
// StatefulSet scaled; the scheduler restarted; resyncs, expiries, lost
// status writes, concurrent calls) and checks after every step:
//
//   - no pod is over capacity, counting reservations, and the state's
//     per-pod counts match an independent model of what every source
//     holds: its status as the scheduler last read it, and while its last
//     answer is not seen written, per pod the larger of that status and
//     the answer (the source's adapter still runs the status);
//   - each call returns vreplicas minus pending, and a call leaves
//     vreplicas pending only when no candidate pod has room;
//   - no call adds vreplicas to a pod that is not a candidate;
//   - no call changes another source's placements;
//   - while every node is available, every pod exists, is bound and not
//     draining, and every zone still has a candidate with room, a source's
//     zone skew after a call is within the HA profile's MaxSkew (2), or
//     no worse than it was before the call when earlier outages left it
//     skewed.
//
// The controller is simulated: after Schedule it writes the placements to
// the source's status, except for an occasional lost write, which the
// source's next call, a TTL expiry or a restart resolves; any answer may be
// lost, including one that takes vreplicas off a pod
// (TestCapacityFreedByUnwrittenDecision).
//
// Concurrent batches make the runs vary slightly from one to the next;
// everything else follows the seed (set simTrace to follow a run).
func TestRandomizedInvariants(t *testing.T) {
	ops := 3000
	if testing.Short() {
		ops = 300
	}
	for _, seed := range []int64{1, 2, 3, 4} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			newSim(t, seed).run(ops)
		})
	}
}

// simTrace logs every operation, for debugging a failing seed.
const simTrace = false

const (
	simCapacity = 6
	simMaxPods  = 9
	simSources  = 14 // names in the pool
	simTTL      = time.Minute
	simMaxSkew  = 2 // the HA profile's AvailabilityZonePriority MaxSkew
)

var simNodes = []string{"node-a1", "node-b1", "node-c1", "node-a2", "node-b2", "node-c2"}

func simZone(node string) string { return "zone-" + node[5:6] }

type sim struct {
	t        *testing.T
	rng      *rand.Rand
	c        *kubeCluster
	s        *Scheduler
	clock    *clocktesting.FakePassiveClock
	profiles config.ProfilesSource
	rec      *recorder

	// model is what the scheduler should know of each source.
	model map[types.NamespacedName]*modelSource

	// loaded is false from a restart until the new scheduler's first
	// Schedule or Resync, which is when it reads the statuses.
	loaded bool

	step  int
	op    string
	stats map[string]int
}

// count records an operation for the summary and the trace.
func (m *sim) count(op string) {
	m.stats[op]++
	if m.op != "" {
		m.op += ", "
	}
	m.op += op
}

func newSim(t *testing.T, seed int64) *sim {
	m := &sim{
		t:        t,
		rng:      rand.New(rand.NewSource(seed)),
		c:        newKubeCluster(t),
		clock:    clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		profiles: profilesFromData(t, kafkaHAScheduler, designDescheduler),
		rec:      &recorder{},
		model:    map[types.NamespacedName]*modelSource{},
		stats:    map[string]int{},
	}
	for _, n := range simNodes {
		m.c.addNode(n, simZone(n))
	}
	for i := int32(0); i < 6; i++ {
		m.c.addPod(i, simNodes[i%6])
	}
	m.c.scale(6)
	m.startScheduler()
	return m
}

func (m *sim) startScheduler() {
	m.s = m.c.start(func(cfg *Config) {
		cfg.Capacity = simCapacity
		cfg.Profiles = m.profiles
		cfg.Clock = m.clock
		cfg.ReservationTTL = simTTL
		cfg.Requeue = m.rec.requeue
	})
	m.s.SetPendingHook(m.rec.onPending)
	// A new process knows what the statuses say, nothing more, once it
	// has read them.
	m.resetToStatus()
	m.loaded = false
}

// modelSource is what the scheduler should know of one source.
type modelSource struct {
	// seen is the source's status as the scheduler read it last: its
	// committed placements.
	seen map[int32]int32
	// reserved says the scheduler's last answer differs from what it
	// built on and is not seen written yet; res is that answer, made from
	// the source at version basedOn.
	reserved bool
	res      map[int32]int32
	basedOn  uint64
}

// placements is what the scheduler builds the next answer from.
func (ms *modelSource) placements() map[int32]int32 {
	if ms.reserved {
		return ms.res
	}
	return ms.seen
}

// charge is what the source counts against each pod: its status, and while
// an answer is outstanding, per pod the larger of the status and the answer.
func (ms *modelSource) charge() map[int32]int32 {
	out := make(map[int32]int32, len(ms.seen)+len(ms.res))
	for ord, n := range ms.seen {
		out[ord] = n
	}
	if ms.reserved {
		for ord, n := range ms.res {
			out[ord] = max(out[ord], n)
		}
	}
	return out
}

func rvOf(v vsched.VPod) uint64 {
	rv, err := strconv.ParseUint(v.GetResourceVersion(), 10, 64)
	if err != nil {
		panic("resource version " + v.GetResourceVersion())
	}
	return rv
}

// resetToStatus makes the model every source's status, without
// reservations: what a scheduler knows once it has read the statuses and
// nothing more, and what every reservation expiring leaves.
func (m *sim) resetToStatus() {
	m.model = map[types.NamespacedName]*modelSource{}
	list, _ := m.c.store.List()
	for _, v := range list {
		m.model[v.GetKey()] = &modelSource{seen: counts(m.t, v.GetPlacements())}
	}
}

// observe records that the scheduler read the source's object: its status
// becomes the committed placements, and a version newer than the one the
// outstanding answer was based on resolves that answer (no other writer
// changes statuses here, so that version shows it written).
func (m *sim) observe(v vsched.VPod) *modelSource {
	ms := m.model[v.GetKey()]
	if ms == nil {
		ms = &modelSource{}
		m.model[v.GetKey()] = ms
	}
	ms.seen = counts(m.t, v.GetPlacements())
	if ms.reserved && rvOf(v) > ms.basedOn {
		ms.reserved, ms.res = false, nil
	}
	return ms
}

// resynced records a resync: the scheduler reads every listed source.
func (m *sim) resynced() {
	list, _ := m.c.store.List()
	for _, v := range list {
		m.observe(v)
	}
}

func (m *sim) fatalf(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("step %d: "+format, append([]any{m.step}, args...)...)
}

func (m *sim) run(ops int) {
	for m.step = 1; m.step <= ops; m.step++ {
		m.op = ""
		m.randomOp()
		if simTrace {
			m.t.Logf("step %d: %s", m.step, m.op)
		}
		m.checkState()
	}
	m.t.Logf("ops: %v", m.stats)
}

// calmEvery alternates stormy and calm phases of this many steps. A calm
// phase starts by healing the cluster and then only changes sources,
// scales the StatefulSet and restarts or resyncs the scheduler, so that
// the zone-skew invariant, which needs a healthy cluster, is checked often.
const calmEvery = 100

func (m *sim) randomOp() {
	c := m.c
	calm := (m.step/calmEvery)%2 == 1
	if calm && m.step%calmEvery == 0 {
		m.count("heal")
		m.heal()
		return
	}
	r := m.rng.Intn(100)
	if calm && r >= 54 && r < 86 {
		// Cluster faults become rescales.
		r = 0
	}
	switch {
	case r < 40:
		name := fmt.Sprintf("src-%02d", m.rng.Intn(simSources))
		m.count("schedule")
		m.op += " " + name
		if c.store.get(name) == nil {
			c.store.create(name, int32(m.rng.Intn(7)))
		} else if m.rng.Intn(3) > 0 {
			c.store.scale(name, int32(m.rng.Intn(9)))
		}
		m.scheduleOne(name)
	case r < 46:
		m.count("delete source")
		name := fmt.Sprintf("src-%02d", m.rng.Intn(simSources))
		if c.store.get(name) != nil {
			c.store.remove(name)
			m.s.Forget(srcKey(name))
			delete(m.model, srcKey(name))
		}
	case r < 54:
		m.count("concurrent")
		m.concurrentBatch()
	case r < 61:
		m.count("cordon")
		n := simNodes[m.rng.Intn(len(simNodes))]
		c.cordon(n, !c.node(n).cordoned)
	case r < 65:
		m.count("node ready")
		n := simNodes[m.rng.Intn(len(simNodes))]
		c.setReady(n, !c.node(n).ready)
	case r < 70:
		m.count("heal")
		m.heal()
	case r < 74:
		m.count("delete pod")
		ord := int32(m.rng.Intn(int(c.replicas())))
		if c.pod(ord) != nil {
			c.deletePod(ord)
		}
	case r < 79:
		m.count("recreate pod")
		for ord := int32(0); ord < c.replicas(); ord++ {
			if c.pod(ord) == nil {
				node := ""
				if m.rng.Intn(2) == 0 {
					node = simNodes[m.rng.Intn(len(simNodes))]
				}
				c.addPod(ord, node)
				break
			}
		}
	case r < 82:
		m.count("bind pod")
		for ord := int32(0); ord < simMaxPods; ord++ { // not the map: runs must repeat
			if p := c.pod(ord); p != nil && p.node == "" {
				c.bind(ord, simNodes[m.rng.Intn(len(simNodes))])
				break
			}
		}
	case r < 86:
		m.count("drain")
		ord := int32(m.rng.Intn(int(c.replicas())))
		if p := c.pod(ord); p != nil {
			c.drain(ord, !p.draining)
		}
	case r < 90:
		m.count("scale statefulset")
		m.scaleStatefulSet(int32(4 + m.rng.Intn(simMaxPods-3)))
	case r < 95:
		m.count("resync")
		if err := m.s.Resync(quietCtx()); err != nil {
			m.fatalf("Resync: %v", err)
		}
		m.loaded = true
		m.resynced()
	case r < 97:
		m.count("expire")
		m.clock.SetTime(m.clock.Now().Add(2 * simTTL))
		if err := m.s.Resync(quietCtx()); err != nil {
			m.fatalf("Resync: %v", err)
		}
		m.loaded = true
		// Every reservation is now older than the TTL: written or not,
		// the answers are gone and the statuses count alone.
		m.resetToStatus()
	default:
		m.count("restart")
		m.c.stop(m.s)
		m.startScheduler()
	}
}

// heal brings every node and pod back, as after maintenance, so that the
// zone-skew check gets to run often.
func (m *sim) heal() {
	c := m.c
	for _, n := range simNodes {
		if c.node(n).cordoned {
			c.cordon(n, false)
		}
		if !c.node(n).ready {
			c.setReady(n, true)
		}
	}
	for ord := int32(0); ord < c.replicas(); ord++ {
		switch p := c.pod(ord); {
		case p == nil:
			c.addPod(ord, simNodes[ord%6])
		case p.node == "":
			c.bind(ord, simNodes[ord%6])
		case p.draining:
			c.drain(ord, false)
		}
	}
}

// scaleStatefulSet changes replicas and creates or deletes pods as the
// StatefulSet controller would.
func (m *sim) scaleStatefulSet(n int32) {
	c := m.c
	old := c.replicas()
	if n < old {
		c.scale(n)
		for ord := n; ord < simMaxPods; ord++ {
			if c.pod(ord) != nil {
				c.deletePod(ord)
			}
		}
		return
	}
	for ord := old; ord < n; ord++ {
		if c.pod(ord) == nil {
			c.addPod(ord, simNodes[ord%6])
		}
	}
	c.scale(n)
}

// snapshot is the scheduler's view before a call.
type snapshot struct {
	placements map[types.NamespacedName]map[int32]int32
	basedOn    map[types.NamespacedName]string // reservations' versions
	candidates map[int32]bool
}

// base is what a call for src starts from: the scheduler's reservation
// while the status passed in is not newer than the version it was made
// from, and otherwise the status (which also covers a scheduler that has
// not loaded yet, and sources it does not know).
func (sn snapshot) base(t testing.TB, src *vsched.PlainVPod) map[int32]int32 {
	if rv, ok := sn.basedOn[src.Key]; ok {
		x, _ := strconv.ParseUint(src.ResourceVersion, 10, 64)
		y, _ := strconv.ParseUint(rv, 10, 64)
		if x <= y {
			return sn.placements[src.Key]
		}
	}
	return counts(t, src.Placements)
}

func (m *sim) snapshot() snapshot {
	sn := snapshot{
		placements: map[types.NamespacedName]map[int32]int32{},
		basedOn:    map[types.NamespacedName]string{},
		candidates: map[int32]bool{},
	}
	m.s.withState(func(st *state.State) {
		for _, k := range st.Sources() {
			ps, _ := st.Placements(k)
			sn.placements[k] = counts(m.t, ps)
			if r, ok := st.ReservationOf(k); ok {
				sn.basedOn[k] = r.BasedOn
			}
		}
		for _, ord := range st.Candidates() {
			sn.candidates[ord] = true
		}
	})
	return sn
}

// checkCall checks one answer against the snapshot taken before it.
func (m *sim) checkCall(src *vsched.PlainVPod, before snapshot, ps []vsched.Placement, err error) {
	m.t.Helper()
	key := src.Key
	if err != nil && !errors.Is(err, vsched.ErrNotEnoughReplicas) {
		m.fatalf("Schedule(%s): %v", key.Name, err)
	}
	got := counts(m.t, ps)
	pending := vsched.PendingCount(err)
	if total := vsched.TotalVReplicas(ps); pending < 0 || total != src.VReplicas-pending {
		m.fatalf("%s wants %d: placed %d with %d pending", key.Name, src.VReplicas, total, pending)
	}
	var recorded int32
	m.s.withState(func(st *state.State) { recorded = st.PendingOf(key) })
	if recorded != pending {
		m.fatalf("%s: the state records %d pending, the call returned %d", key.Name, recorded, pending)
	}
	base := before.base(m.t, src)
	for ord, n := range got {
		if n > base[ord] && !before.candidates[ord] {
			m.fatalf("%s: adapter-%d went from %d to %d but is not a candidate; answer [%s]", key.Name, ord, base[ord], n, short(ps))
		}
	}
}

// scheduleOne schedules one source, checks the answer, and writes it to
// the status (or, once in 20 calls, loses the write).
func (m *sim) scheduleOne(name string) {
	src := m.c.store.get(name)
	before := m.snapshot()
	healthy := m.healthy()
	ps, err := m.s.Schedule(quietCtx(), src)
	m.loaded = true
	m.checkCall(src, before, ps, err)
	after := m.snapshot()
	for k, was := range before.placements {
		if k != src.Key && !sameCounts(was, after.placements[k]) {
			m.fatalf("scheduling %s changed %s from %v to %v", name, k.Name, was, after.placements[k])
		}
	}
	if vsched.PendingCount(err) > 0 {
		m.s.withState(func(st *state.State) {
			for _, ord := range st.Candidates() {
				if st.Free(ord) > 0 {
					m.fatalf("%s left %d pending while candidate adapter-%d has %d free", name, vsched.PendingCount(err), ord, st.Free(ord))
				}
			}
		})
	}
	if healthy {
		m.checkZoneSkew(src, before.base(m.t, src), ps)
	}
	// Lose one write in 20.
	m.record(src, ps, m.rng.Intn(20) == 0)
}

// record updates the model with a call for src and its answer, and writes
// the answer to the status unless lost. The scheduler read src, and reserves
// the answer when it differs from what it built on; the status write it sees
// only when it reads the source again.
func (m *sim) record(src *vsched.PlainVPod, ps []vsched.Placement, lost bool) {
	ms := m.observe(src)
	if got := counts(m.t, ps); !sameCounts(got, ms.placements()) {
		ms.reserved, ms.res, ms.basedOn = true, got, rvOf(src)
	}
	if lost {
		m.count("lost write")
		return
	}
	m.c.store.writeStatus(src.Key.Name, ps)
}

// concurrentBatch rescales several sources and schedules them all at once.
func (m *sim) concurrentBatch() {
	names := m.rng.Perm(simSources)[:2+m.rng.Intn(5)]
	srcs := make([]*vsched.PlainVPod, len(names))
	for i, n := range names {
		name := fmt.Sprintf("src-%02d", n)
		if m.c.store.get(name) == nil {
			m.c.store.create(name, 0)
		}
		srcs[i] = m.c.store.scale(name, int32(m.rng.Intn(9)))
	}
	before := m.snapshot()
	pss := make([][]vsched.Placement, len(srcs))
	errs := make([]error, len(srcs))
	var wg sync.WaitGroup
	for i := range srcs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			pss[i], errs[i] = m.s.Schedule(quietCtx(), srcs[i])
		}(i)
	}
	wg.Wait()
	m.loaded = true
	batch := map[types.NamespacedName]bool{}
	for i, src := range srcs {
		m.checkCall(src, before, pss[i], errs[i])
		batch[src.Key] = true
	}
	after := m.snapshot()
	for k, was := range before.placements {
		if !batch[k] && !sameCounts(was, after.placements[k]) {
			m.fatalf("a concurrent batch changed %s, not in it, from %v to %v", k.Name, was, after.placements[k])
		}
	}
	for i, src := range srcs {
		if !sameCounts(after.placements[src.Key], counts(m.t, pss[i])) {
			m.fatalf("%s: the state holds %v, its answer was [%s]", src.Key.Name, after.placements[src.Key], short(pss[i]))
		}
		m.record(src, pss[i], false)
	}
}

// healthy reports whether every node is available and every pod of the
// StatefulSet exists, is bound and is not draining.
func (m *sim) healthy() bool {
	c := m.c
	for _, name := range simNodes {
		if n := c.node(name); !n.ready || n.cordoned {
			return false
		}
	}
	for ord := int32(0); ord < c.replicas(); ord++ {
		if p := c.pod(ord); p == nil || p.node == "" || p.draining {
			return false
		}
	}
	return true
}

// zoneSkew is the spread of the source's vreplicas over the three zones,
// counting pods below replicas by the node they are on now.
func (m *sim) zoneSkew(ps map[int32]int32) int32 {
	byZone := map[string]int32{"zone-a": 0, "zone-b": 0, "zone-c": 0}
	for ord, n := range ps {
		if p := m.c.pod(ord); p != nil && p.node != "" && ord < m.c.replicas() {
			byZone[simZone(p.node)] += n
		}
	}
	lo, hi := int32(1<<30), int32(0)
	for _, n := range byZone {
		lo, hi = min(lo, n), max(hi, n)
	}
	return hi - lo
}

func (m *sim) checkZoneSkew(src *vsched.PlainVPod, before map[int32]int32, ps []vsched.Placement) {
	m.t.Helper()
	// Capacity allows: every zone still has a candidate with room after
	// the call, so no vreplica was forced into an uneven zone.
	room := map[string]bool{}
	m.s.withState(func(st *state.State) {
		for _, ord := range st.Candidates() {
			if info, ok := st.Pod(ord); ok && st.Free(ord) > 0 {
				room[info.Zone] = true
			}
		}
	})
	if len(room) < 3 {
		return
	}
	m.count("zone skew checked")
	skewBefore := m.zoneSkew(before)
	skewAfter := m.zoneSkew(counts(m.t, ps))
	if skewAfter > max(simMaxSkew, skewBefore) {
		m.s.withState(func(st *state.State) {
			for ord := int32(0); ord < st.NumPods(); ord++ {
				info, _ := st.Pod(ord)
				m.t.Logf("adapter-%d: zone %s node %s candidate %v free %d", ord, info.Zone, info.Node, info.Candidate, st.Free(ord))
			}
		})
		m.fatalf("%s: zone skew %d after the call (before %d, MaxSkew %d): [%s] from %v",
			src.Key.Name, skewAfter, skewBefore, simMaxSkew, short(ps), before)
	}
}

// checkState checks capacity and bookkeeping after every step.
func (m *sim) checkState() {
	m.t.Helper()
	m.s.withState(func(st *state.State) {
		// Until a restarted scheduler reads the statuses it knows no
		// source, and the model's sources are not yet its own.
		perPod := map[int32]int32{}
		known := map[types.NamespacedName]bool{}
		for _, k := range st.Sources() {
			known[k] = true
			ps, _ := st.Placements(k)
			committed, _ := st.Committed(k)
			res, reserved := st.ReservationOf(k)
			if m.loaded {
				ms := m.model[k]
				if ms == nil {
					ms = &modelSource{}
				}
				if got, want := counts(m.t, ps), ms.placements(); !sameCounts(got, want) {
					m.fatalf("state holds %v for %s, the model %v", got, k.Name, want)
				}
				if got := counts(m.t, committed); !sameCounts(got, ms.seen) {
					m.fatalf("state's committed placements for %s are %v, the model's %v", k.Name, got, ms.seen)
				}
				if reserved != ms.reserved {
					m.fatalf("%s: the state has a reservation: %v (%v), the model: %v (%v)", k.Name, reserved, res.Placements, ms.reserved, ms.res)
				}
			} else {
				// What the state's own view of the source charges.
				ms := &modelSource{seen: counts(m.t, committed), reserved: reserved}
				if reserved {
					ms.res = counts(m.t, res.Placements)
				}
				for ord, n := range ms.charge() {
					perPod[ord] += n
				}
			}
		}
		if m.loaded {
			for k, ms := range m.model {
				if !known[k] && (len(ms.seen) > 0 || len(ms.res) > 0) {
					m.fatalf("the state lost %s (%v, reserved %v)", k.Name, ms.seen, ms.res)
				}
				for ord, n := range ms.charge() {
					perPod[ord] += n
				}
			}
		}
		var indexed []types.NamespacedName
		for _, k := range st.Sources() {
			if st.PendingOf(k) > 0 {
				indexed = append(indexed, k)
			}
		}
		if d := cmp.Diff(indexed, st.PendingKeys(), cmpopts.EquateEmpty()); d != "" {
			m.fatalf("the pending index differs from the sources' pending counts (-sources +index):\n%s", d)
		}
		for ord := int32(0); ord < max(st.NumPods(), simMaxPods); ord++ {
			if u := st.Used(ord); u != perPod[ord] || u > simCapacity {
				m.fatalf("adapter-%d: used %d, sources charge %d, capacity %d", ord, u, perPod[ord], simCapacity)
			}
		}
	})
}

// sameCounts compares two ordinal -> vreplicas maps, ignoring zeros.
func sameCounts(a, b map[int32]int32) bool {
	nonZero := func(m map[int32]int32) int {
		n := 0
		for _, v := range m {
			if v != 0 {
				n++
			}
		}
		return n
	}
	if nonZero(a) != nonZero(b) {
		return false
	}
	for ord, n := range a {
		if n != 0 && b[ord] != n {
			return false
		}
	}
	return true
}
