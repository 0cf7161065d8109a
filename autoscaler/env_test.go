package autoscaler

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// inTree is the in-tree registry with vsched's default policy, which the
// tests build their profiles with. Nothing changes it.
var inTree = plugins.MustInTreeRegistry()

// The autoscaler's test environment: a memcluster (fake clientset, real
// informers, fake clock, the scale subresource), a scheduler and its autoscaler, and an emulation of the two
// controllers around them: the source controller (Schedule, status write,
// requeues from the scheduler and the evictor) and the StatefulSet
// controller (pods follow spec.replicas when settle is called).

type envOpts struct {
	replicas     int32
	zones        []string
	nodesPerZone int
	capacity     int32
	profiles     config.ProfilesSource
	noEvictor    bool
	notLeader    bool
	autoscaler   func(*Options)
	scheduler    func(*statefulset.Config)
	config       func(*config.AutoscalerConfig)
	// beforeStart runs on the cluster before its informers start, to
	// install reactors on the watches they open.
	beforeStart func(*memcluster.Cluster)
}

// keyQueue is a controller's work queue, deduplicated.
type keyQueue struct {
	mu   sync.Mutex
	keys []types.NamespacedName
	all  []types.NamespacedName
}

func (q *keyQueue) add(k types.NamespacedName) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.all = append(q.all, k)
	for _, x := range q.keys {
		if x == k {
			return
		}
	}
	q.keys = append(q.keys, k)
}

// take empties the queue. Its keys come sorted, not in the order
// concurrent workers added them, so that what a test draws from them
// follows its seed.
func (q *keyQueue) take() []types.NamespacedName {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.keys
	q.keys = nil
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func (q *keyQueue) history() []types.NamespacedName {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]types.NamespacedName(nil), q.all...)
}

type asEnv struct {
	t   testing.TB
	ctx context.Context
	c   *memcluster.Cluster
	src *memcluster.Sources
	s   *statefulset.Scheduler
	a   *Autoscaler
	// profiles and capacity are the scheduler's, for addReplica.
	profiles config.ProfilesSource
	capacity int32
	rec      *record.FakeRecorder
	clk      *clocktesting.FakeClock
	cfg      atomic.Pointer[config.AutoscalerConfig]
	// evicted is the Evictor's queue, requeued the scheduler's.
	evicted, requeued keyQueue
	// results records, per source, every Schedule result written.
	mu      sync.Mutex
	results map[types.NamespacedName][][]vsched.Placement
}

func newEnv(t testing.TB, o envOpts) *asEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.NewNop().Sugar()))
	if o.capacity == 0 {
		o.capacity = 10
	}
	if o.zones == nil {
		o.zones = memcluster.DefaultZones
	}
	c, err := memcluster.New(ctx, memcluster.Options{Zones: o.zones, NodesPerZone: o.nodesPerZone, Replicas: o.replicas, Capacity: o.capacity})
	if err != nil {
		t.Fatal(err)
	}
	e := &asEnv{t: t, ctx: ctx, c: c, src: memcluster.NewSources(), rec: record.NewFakeRecorder(1000), clk: c.Clock(),
		results: map[types.NamespacedName][][]vsched.Placement{}}
	cfg := config.DefaultAutoscalerConfig()
	if o.config != nil {
		o.config(cfg)
	}
	e.cfg.Store(cfg)
	profiles := o.profiles
	if profiles == nil {
		var err error
		if profiles, err = config.ProfilesFromConfigMaps(ctx, inTree, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	e.profiles, e.capacity = profiles, o.capacity
	scfg := statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: o.capacity,
		Lister: e.src.List, ListerSynced: e.src.HasSynced, Informers: statefulset.InformersFromFactory(c.InformerFactory()), Profiles: profiles,
		AlwaysLeader: !o.notLeader, Clock: c.Clock(), Requeue: e.requeued.add,
		DrainMoveLimit: config.AutoscalerSource(e.cfg.Load).DrainMoveLimit,
	}
	if o.scheduler != nil {
		o.scheduler(&scfg)
	}
	e.s, err = statefulset.New(ctx, scfg)
	if err != nil {
		t.Fatal(err)
	}
	acfg := Options{
		Scheduler: e.s, Client: c.Client(), Recorder: e.rec, Config: e.cfg.Load, Clock: c.Clock(),
		Cache: CacheFromFactory(c.InformerFactory()),
	}
	if !o.noEvictor {
		acfg.Requeue = func(_ context.Context, k types.NamespacedName) error { e.evicted.add(k); return nil }
	}
	if o.autoscaler != nil {
		o.autoscaler(&acfg)
	}
	e.a, err = New(ctx, acfg)
	if err != nil {
		t.Fatal(err)
	}
	if o.beforeStart != nil {
		o.beforeStart(c)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	return e
}

func (e *asEnv) key(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "sources", Name: name}
}

// create adds a source and schedules it, as its controller would.
func (e *asEnv) create(name string, vreplicas int32, partitions ...int32) []vsched.Placement {
	e.t.Helper()
	if _, err := e.src.Create(e.key(name), vreplicas, partitions...); err != nil {
		e.t.Fatal(err)
	}
	return e.schedule(e.key(name))
}

// update changes a source's vreplicas and schedules it.
func (e *asEnv) update(name string, vreplicas int32) []vsched.Placement {
	e.t.Helper()
	if _, err := e.src.Update(e.key(name), vreplicas); err != nil {
		e.t.Fatal(err)
	}
	return e.schedule(e.key(name))
}

// schedule does what a source controller does: Schedule, write the status,
// and forward the written object to the scheduler (its informer would).
func (e *asEnv) schedule(k types.NamespacedName) []vsched.Placement {
	e.t.Helper()
	for attempt := 0; ; attempt++ {
		ps, err := e.src.Reconcile(e.ctx, e.s, k)
		if apierrors.IsConflict(err) && attempt < 5 {
			continue
		}
		if err != nil && vsched.PendingCount(err) == 0 {
			e.t.Fatalf("reconciling %s: %v", k, err)
		}
		e.written(k, ps)
		return ps
	}
}

// work processes both queues until they are empty.
func (e *asEnv) work() int {
	e.t.Helper()
	n := 0
	for i := 0; i < 100; i++ {
		keys := append(e.requeued.take(), e.evicted.take()...)
		if len(keys) == 0 {
			return n
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].Name < keys[j].Name })
		seen := map[types.NamespacedName]bool{}
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				if _, err := e.src.Get(k); err == nil {
					e.schedule(k)
					n++
				}
			}
		}
	}
	e.t.Fatal("work queue does not drain")
	return n
}

// reconcile runs one autoscaler cycle.
func (e *asEnv) reconcile() Report {
	e.t.Helper()
	d, err := e.a.Reconcile(e.ctx)
	if err != nil {
		e.t.Fatalf("Reconcile: %v", err)
	}
	return d
}

// specReplicas is the StatefulSet's spec.replicas in the API server.
func (e *asEnv) specReplicas() int32 {
	e.t.Helper()
	set, err := e.c.StatefulSet()
	if err != nil {
		e.t.Fatal(err)
	}
	return *set.Spec.Replicas
}

// settle plays the StatefulSet controller: the pods follow spec.replicas,
// and the scheduler's state sees it all.
func (e *asEnv) settle() {
	e.t.Helper()
	n := e.specReplicas()
	if n != e.c.Replicas() {
		if err := e.c.ScaleTo(n); err != nil {
			e.t.Fatal(err)
		}
	}
	e.sync()
}

func (e *asEnv) sync() {
	e.t.Helper()
	if err := e.c.Sync(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	n := e.specReplicas()
	if err := e.c.WaitFor(e.ctx, func() bool {
		return e.s.Replicas() == n
	}); err != nil {
		e.t.Fatal(err)
	}
}

// step advances the fake clock.
func (e *asEnv) step(d time.Duration) { e.clk.Step(d) }

// events drains the recorded Events.
func (e *asEnv) events() []string {
	var out []string
	for {
		select {
		case ev := <-e.rec.Events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

func countPrefix(events []string, prefix string) int {
	n := 0
	for _, ev := range events {
		if strings.HasPrefix(ev, prefix) {
			n++
		}
	}
	return n
}

// scaleUpdates counts UpdateScale calls seen by the fake clientset.
func (e *asEnv) scaleUpdates() int {
	n := 0
	for _, a := range e.c.Client().Actions() {
		if a.GetVerb() == "update" && a.GetResource().Resource == "statefulsets" && a.GetSubresource() == "scale" {
			n++
		}
	}
	return n
}

// pending is the scheduler's pending count over every source.
func (e *asEnv) pending() int64 {
	_, n := e.s.Snapshot().Pending()
	return n
}

// placementsOf is the source's committed placements.
func (e *asEnv) placementsOf(name string) []vsched.Placement {
	e.t.Helper()
	v, err := e.src.Get(e.key(name))
	if err != nil {
		e.t.Fatal(err)
	}
	return v.GetPlacements()
}

// checkPlacements reports, source by source in name order, each whose
// committed placements differ from want's.
func (e *asEnv) checkPlacements(want map[string][]vsched.Placement) {
	e.t.Helper()
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if diff := cmp.Diff(want[name], e.placementsOf(name)); diff != "" {
			e.t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// usedOn is what the state counts per ordinal.
func (e *asEnv) usedOn() map[int32]int32 {
	out := map[int32]int32{}
	st := e.s.Snapshot()
	for ord := int32(0); ord < st.NumPods(); ord++ {
		if u := st.Used(ord); u != 0 {
			out[ord] = u
		}
	}
	return out
}

// draining reports whether the scheduler's state counts any of the pods
// draining.
func (e *asEnv) draining(ords ...int32) bool {
	st := e.s.Snapshot()
	for _, o := range ords {
		if st.Draining(o) {
			return true
		}
	}
	return false
}

// setConfig replaces the autoscaler configuration.
func (e *asEnv) setConfig(f func(*config.AutoscalerConfig)) {
	cfg := *e.cfg.Load()
	f(&cfg)
	e.cfg.Store(&cfg)
}

// scheduleAll schedules every source.
func (e *asEnv) scheduleAll() {
	e.t.Helper()
	vs, err := e.src.List()
	if err != nil {
		e.t.Fatal(err)
	}
	for _, v := range vs {
		e.schedule(v.GetKey())
	}
}

// annotations is the StatefulSet's annotations in the API server.
func (e *asEnv) annotations() map[string]string {
	e.t.Helper()
	set, err := e.c.StatefulSet()
	if err != nil {
		e.t.Fatal(err)
	}
	return set.Annotations
}

// rv is the source's current resource version.
func (e *asEnv) rv(name string) string {
	e.t.Helper()
	v, err := e.src.Get(e.key(name))
	if err != nil {
		e.t.Fatal(err)
	}
	return v.GetResourceVersion()
}

// replica is another controller replica over the same cluster and sources:
// its own scheduler (own state) and autoscaler, sharing the informers.
type replica struct {
	s *statefulset.Scheduler
	a *Autoscaler
}

// addReplica builds another replica. alwaysLeader false makes it lead only
// once promoted.
func (e *asEnv) addReplica(alwaysLeader bool, profiles config.ProfilesSource) replica {
	e.t.Helper()
	if profiles == nil {
		profiles = e.profiles
	}
	s, err := statefulset.New(e.ctx, statefulset.Config{
		Namespace: e.c.Namespace(), Name: e.c.StatefulSetName(), Capacity: e.capacity,
		Lister: e.src.List, ListerSynced: e.src.HasSynced, Informers: statefulset.InformersFromFactory(e.c.InformerFactory()), Profiles: profiles,
		AlwaysLeader: alwaysLeader, Clock: e.clk, Requeue: e.requeued.add,
		DrainMoveLimit: config.AutoscalerSource(e.cfg.Load).DrainMoveLimit,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	a, err := New(e.ctx, Options{
		Scheduler: s, Client: e.c.Client(), Recorder: e.rec, Config: e.cfg.Load, Clock: e.clk,
		Cache:   CacheFromFactory(e.c.InformerFactory()),
		Requeue: func(_ context.Context, k types.NamespacedName) error { e.evicted.add(k); return nil },
	})
	if err != nil {
		e.t.Fatal(err)
	}
	// The new handlers receive the cluster as it is.
	e.c.InformerFactory().Start(e.ctx.Done())
	if err := e.c.Sync(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	return replica{s: s, a: a}
}

// restart replaces the scheduler and its autoscaler by those of a new
// controller process with the given pod capacity, on the same cluster,
// sources and informers.
func (e *asEnv) restart(capacity int32) {
	e.t.Helper()
	e.s.Close()
	e.capacity = capacity
	e.use(e.addReplica(true, nil))
}

// use makes the replica the one the controllers talk to.
func (e *asEnv) use(r replica) {
	e.s, e.a = r.s, r.a
}

// short renders placements as "0:2 1:1" for messages.
func short(ps []vsched.Placement) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil {
			fmt.Fprintf(&b, "%d:%d", ord, p.VReplicas)
		} else {
			fmt.Fprintf(&b, "%s:%d", p.PodName, p.VReplicas)
		}
	}
	return b.String()
}

// wantPlacements compares ordinal:count pairs, ignoring node and zone.
func wantPlacements(t testing.TB, got []vsched.Placement, pairs ...int32) {
	t.Helper()
	want := make([]string, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		want = append(want, fmt.Sprintf("%d:%d", pairs[i], pairs[i+1]))
	}
	if g, w := short(got), strings.Join(want, " "); g != w {
		t.Fatalf("placements = [%s], want [%s]", g, w)
	}
}

func quiet() context.Context {
	return logging.WithLogger(context.Background(), zap.NewNop().Sugar())
}

func (e *asEnv) nodeOf(ord int32) string {
	e.t.Helper()
	p, err := e.c.Pod(ord)
	if err != nil {
		e.t.Fatal(err)
	}
	return p.Spec.NodeName
}
