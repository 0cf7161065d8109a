package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
)

// eventGate holds back the events of the StatefulSet watches while held, so
// a test can act while the scheduler's view of the size is behind the API
// server, as it is on a loaded cluster.
type eventGate struct {
	mu   sync.Mutex
	cond *sync.Cond
	held bool
}

// holdStatefulSetWatch wraps every StatefulSet watch opened from now on
// (install it before the informers start) in the returned gate. The
// cluster's own reactor still opens the watch, so Sync keeps working.
func holdStatefulSetWatch(c *memcluster.Cluster) *eventGate {
	g := &eventGate{}
	g.cond = sync.NewCond(&g.mu)
	f := &c.Client().Fake
	f.Lock()
	chain := append([]clienttesting.WatchReactor(nil), f.WatchReactionChain...)
	f.Unlock()
	f.PrependWatchReactor("statefulsets", func(action clienttesting.Action) (bool, watch.Interface, error) {
		for _, r := range chain {
			if !r.Handles(action) {
				continue
			}
			if handled, w, err := r.React(action); handled {
				if err != nil || w == nil {
					return true, w, err
				}
				return true, g.wrap(w), nil
			}
		}
		return false, nil, nil
	})
	return g
}

func (g *eventGate) hold() {
	g.mu.Lock()
	g.held = true
	g.mu.Unlock()
}

func (g *eventGate) release() {
	g.mu.Lock()
	g.held = false
	g.cond.Broadcast()
	g.mu.Unlock()
}

// wrap forwards w's events in order, none while the gate is held.
func (g *eventGate) wrap(w watch.Interface) watch.Interface {
	out := make(chan watch.Event)
	pw := watch.NewProxyWatcher(out)
	var queue []watch.Event
	done := false
	go func() {
		for ev := range w.ResultChan() {
			g.mu.Lock()
			queue = append(queue, ev)
			g.cond.Broadcast()
			g.mu.Unlock()
		}
		g.mu.Lock()
		done = true
		g.cond.Broadcast()
		g.mu.Unlock()
	}()
	go func() {
		<-pw.StopChan()
		w.Stop()
		g.mu.Lock()
		done = true
		g.cond.Broadcast()
		g.mu.Unlock()
	}()
	go func() {
		defer close(out)
		for {
			g.mu.Lock()
			for !done && (g.held || len(queue) == 0) {
				g.cond.Wait()
			}
			if done {
				g.mu.Unlock()
				return
			}
			ev := queue[0]
			queue = queue[1:]
			g.mu.Unlock()
			select {
			case out <- ev:
			case <-pw.StopChan():
				return
			}
		}
	}()
	return pw
}

// beyond returns the placements at or above ordinal n.
func beyond(ps []vsched.Placement, n int32) []vsched.Placement {
	var out []vsched.Placement
	for _, p := range ps {
		if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil && ord >= n && p.VReplicas > 0 {
			out = append(out, p)
		}
	}
	return out
}

// gatedEnv is 4 pods packing s0 (10 vreplicas) and s1 (5), no window
// before a size change, and a gate on the StatefulSet watch.
func gatedEnv(t *testing.T) (*asEnv, *eventGate) {
	var gate *eventGate
	e := newEnv(t, envOpts{replicas: 4, profiles: packProfiles(t),
		config:      func(c *config.AutoscalerConfig) { c.StabilizationWindow, c.ScaleDownCooldown = 0, 0 },
		beforeStart: func(c *memcluster.Cluster) { gate = holdStatefulSetWatch(c) }})
	e.create("s0", 10)
	e.create("s1", 5)
	return e, gate
}

func TestAutoscalerShrinkFencesOrdinalsBeforeTheInformerSeesIt(t *testing.T) {
	e, gate := gatedEnv(t)
	before, err := e.c.StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	gate.hold()
	d := e.reconcile()
	if !d.Written || d.Target != 2 {
		t.Fatalf("decision %+v, want 2 replicas written", d)
	}
	// The scheduler's informer has not delivered the new size, and an
	// event from before the write arrives late: neither may make pods 2
	// and 3 candidates again.
	e.s.ObserveStatefulSet(before.DeepCopy())
	for _, name := range []string{"late", "later"} {
		ps := e.create(name, 10)
		if b := beyond(ps, 2); len(b) > 0 {
			t.Fatalf("%s was placed on %v, past the 2 replicas just written", name, short(b))
		}
		if b := beyond(e.placementsOf(name), 2); len(b) > 0 {
			t.Fatalf("%s's status lists %v, past the 2 replicas just written", name, short(b))
		}
	}
	gate.release()
	e.settle()
	// Once the informer has confirmed the size, growing brings the pods
	// back as candidates.
	if d := e.reconcile(); d.Action != ActionScaleUp || d.Target != 4 || !d.Written {
		t.Fatalf("after the shrink: %+v, want a scale-up to 4 for the 15 pending vreplicas", d)
	}
	e.settle()
	e.work()
	if e.pending() != 0 {
		t.Fatalf("after growing again: pending %d, late on %s, later on %s", e.pending(),
			short(e.placementsOf("late")), short(e.placementsOf("later")))
	}
}

// hookPolicy is the fit policy, running f (once) where the autoscaler
// consults it: after its snapshot of the state, before any write.
type hookPolicy struct {
	FitPolicy
	once sync.Once
	f    func()
}

func (p *hookPolicy) Recommend(ctx context.Context, obs Observation) Recommendation {
	p.once.Do(func() {
		if p.f != nil {
			p.f()
		}
	})
	return p.FitPolicy.Recommend(ctx, obs)
}

func TestAutoscalerShrinkChecksWhatWasScheduledSinceItsSnapshot(t *testing.T) {
	pol := &hookPolicy{}
	e := newEnv(t, envOpts{replicas: 4, profiles: packProfiles(t),
		config:     func(c *config.AutoscalerConfig) { c.StabilizationWindow, c.ScaleDownCooldown = 0, 0 },
		autoscaler: func(c *Options) { c.Policy = pol }})
	e.create("s0", 10)
	e.create("s1", 5)
	// Between the cycle's snapshot and its write, x arrives: 5 on pod 1,
	// 5 on pod 2, which the snapshot saw empty.
	pol.f = func() { e.create("x", 10) }
	d := e.reconcile()
	wantPlacements(t, e.placementsOf("x"), 1, 5, 2, 5)
	if n := e.specReplicas(); n != 3 || d.Target != 3 || !d.Written {
		t.Fatalf("replicas %d, decision %+v; want a shrink to 3 only, past the empty pod 3", n, d)
	}
	if !strings.Contains(d.Reason, vsched.PodName(testSetName(e), 2)) {
		t.Fatalf("reason %q does not say why the shrink stopped at 3", d.Reason)
	}
	e.settle()
	if b := beyond(e.placementsOf("x"), e.specReplicas()); len(b) > 0 {
		t.Fatalf("x runs on %v, past the %d replicas", short(b), e.specReplicas())
	}
}

func TestSchedulerShrinkRequeuesSourcesAboveTheNewSize(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 4, profiles: packProfiles(t), noEvictor: true})
	for _, n := range []string{"s0", "s1", "s2"} {
		e.create(n, 10)
	}
	e.requeued.take()
	// No autoscaler sizes the StatefulSet (none installed the reader):
	// its size is whoever sets it. With one, the shrink below is sized
	// back instead (TestOutsideScaleDown).
	e.s.SetStatefulSetReader(nil)
	// Someone else (kubectl, another controller) shrinks past s2's pod.
	if err := e.c.ScaleTo(2); err != nil {
		t.Fatal(err)
	}
	e.sync()
	if err := e.c.WaitFor(e.ctx, func() bool { return slices.Contains(e.requeued.history(), e.key("s2")) }); err != nil {
		t.Fatalf("s2, on pod 2, was not requeued after the shrink to 2: requeued %v", e.requeued.history())
	}
	for _, k := range e.requeued.history() {
		if k != e.key("s2") {
			t.Fatalf("requeued %v, which holds nothing past the new size", k)
		}
	}
	e.work()
	if b := beyond(e.placementsOf("s2"), 2); len(b) > 0 {
		t.Fatalf("s2's status still lists %v after its requeue", short(b))
	}
}

func TestAutoscalerFailedShrinkRestoresTheOrdinals(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 4, profiles: packProfiles(t),
		config: func(c *config.AutoscalerConfig) { c.StabilizationWindow, c.ScaleDownCooldown = 0, 0 }})
	e.create("s0", 10)
	e.c.Client().PrependReactor("update", "statefulsets", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() == "scale" {
			return true, nil, errors.New("injected: the API server is unavailable")
		}
		return false, nil, nil
	})
	d, err := e.a.Reconcile(e.ctx)
	if err == nil || d.Written || e.specReplicas() != 4 {
		t.Fatalf("decision %+v, error %v; want the failed write reported", d, err)
	}
	// The write failed: pods 1-3 take vreplicas again at once.
	ps := e.create("x", 25)
	wantPlacements(t, ps, 1, 10, 2, 10, 3, 5)
}

func TestSchedulerFenceEndsOnlyWithAConfirmingEvent(t *testing.T) {
	var e *asEnv
	set := func(replicas int32, rv string) *appsv1.StatefulSet {
		return &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: e.c.Namespace(), Name: e.c.StatefulSetName(), ResourceVersion: rv},
			Spec:       appsv1.StatefulSetSpec{Replicas: &replicas},
		}
	}
	replicas := func() int32 { return e.s.Replicas() }
	for _, tc := range []struct {
		name      string
		replicas  int32
		rv        string
		confirmed bool
	}{
		{"older event", 4, "100", false},
		{"same version, old size", 4, "200", false},
		{"newer version", 4, "201", true},
		{"target size", 2, "150", true},
		{"smaller size", 1, "150", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each case on a cluster of its own: an event older than one
			// already seen is ignored (state.State.StaleReplicas).
			e = newEnv(t, envOpts{replicas: 4, profiles: packProfiles(t), noEvictor: true})
			e.s.ObserveStatefulSet(set(4, "100"))
			to, why, prev := e.s.FenceShrink(4, 2)
			if to != 2 || why != "" {
				t.Fatalf("fenceShrink = %d, %q", to, why)
			}
			e.s.EndShrink(prev, 2, "200", nil)
			if r := replicas(); r != 2 {
				t.Fatalf("after the write: replicas %d, want 2", r)
			}
			e.s.ObserveStatefulSet(set(tc.replicas, tc.rv))
			want := int32(2)
			if tc.confirmed {
				want = tc.replicas
			}
			if r := replicas(); r != want {
				t.Fatalf("replicas %d after the event, want %d", r, want)
			}
		})
	}
}

// stuckAboveMax builds 6 pods of 10 with s0..s4 holding 10 each on pods 0-4
// and max-replicas 3: the 50 vreplicas need 5 pods.
func stuckAboveMax(t *testing.T, moves int32) *asEnv {
	e := newEnv(t, envOpts{replicas: 6, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
		c.MaxReplicas = 3
		c.MaxMovesPerCycle = moves
	}})
	for i := 0; i < 5; i++ {
		e.create(fmt.Sprintf("s%d", i), 10)
	}
	return e
}

// writes counts the writes the clientset saw.
func (e *asEnv) writes() int {
	n := 0
	for _, a := range e.c.Client().Actions() {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete":
			n++
		}
	}
	return n
}

func TestAutoscalerNeedAboveMaxReplicasDrainsNothing(t *testing.T) {
	// With one move per cycle the compaction horizon (10 vreplicas) keeps
	// the fit's search above 3 pods: the sources below it count too.
	for _, moves := range []int32{100, 1} {
		t.Run(fmt.Sprintf("max-moves-per-cycle %d", moves), func(t *testing.T) { needAboveMax(t, moves) })
	}
}

func needAboveMax(t *testing.T, moves int32) {
	e := stuckAboveMax(t, moves)
	d := e.reconcile()
	if len(d.Draining) != 0 {
		t.Fatalf("drained %v although 3 pods cannot hold the 50 vreplicas: %+v", d.Draining, d)
	}
	want := []SourcePending{{Source: e.key("s3"), Pending: 10}, {Source: e.key("s4"), Pending: 10}}
	if fmt.Sprint(d.PendingAtMax) != fmt.Sprint(want) || d.Unplaceable != 20 {
		t.Fatalf("pending at max-replicas %v (unplaceable %d), want %v (20)", d.PendingAtMax, d.Unplaceable, want)
	}
	// Only the empty pod goes.
	if d.Action != ActionScaleDown || d.Target != 5 || !d.Written || !strings.Contains(d.Reason, "max-replicas") {
		t.Fatalf("decision %+v, want the empty pod 5 removed, saying why no more", d)
	}
	e.settle()
	e.work()
	e.reconcile()
	e.work()
	writes := e.writes()
	for cycle := 0; cycle < 3; cycle++ {
		d = e.reconcile()
		e.work()
		if d.Action != ActionHold || len(d.Draining) != 0 || len(d.Requeued) != 0 || len(d.PendingAtMax) != 2 {
			t.Fatalf("cycle %d: %+v", cycle, d)
		}
	}
	if n := e.writes() - writes; n != 0 {
		t.Fatalf("%d writes in cycles that cannot progress", n)
	}
	evs := e.events()
	if countPrefix(evs, "Warning "+ReasonMaxReplicasExceeded) != 1 || countPrefix(evs, "Normal CompactionStarted") != 0 {
		t.Fatalf("events = %q, want one %s and no compaction", evs, ReasonMaxReplicasExceeded)
	}
	for i := 0; i < 5; i++ {
		ps := e.placementsOf(fmt.Sprintf("s%d", i))
		if vsched.TotalVReplicas(ps) != 10 || len(beyond(ps, 5)) > 0 {
			t.Fatalf("s%d holds %s", i, short(ps))
		}
	}
}

func TestAutoscalerAtScaleNeedAboveMaxReplicasStrandsNothing(t *testing.T) {
	// 300 pods, the default max-replicas of 100, and 150 sources of 10 on
	// pods 0-149: the need is 150 pods.
	e := newEnv(t, envOpts{replicas: 300, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
	}})
	for i := 0; i < 150; i++ {
		e.create(fmt.Sprintf("s%03d", i), 10)
	}
	for cycle := 0; cycle < 3; cycle++ {
		d := e.reconcile()
		if len(d.Draining) != 0 {
			t.Fatalf("cycle %d drained %d pods although 100 cannot hold 1500 vreplicas", cycle, len(d.Draining))
		}
		var pending int64
		for _, p := range d.PendingAtMax {
			pending += p.Pending
		}
		if len(d.PendingAtMax) != 50 || pending != 500 {
			t.Fatalf("cycle %d: %d sources, %d vreplicas pending at max-replicas; want 50, 500", cycle, len(d.PendingAtMax), pending)
		}
		e.settle()
		e.work()
	}
	if n := e.specReplicas(); n != 150 {
		t.Fatalf("replicas %d, want 150: the pods above every vreplica go, no others", n)
	}
	for i := 0; i < 150; i++ {
		ps := e.placementsOf(fmt.Sprintf("s%03d", i))
		if vsched.TotalVReplicas(ps) != 10 || len(beyond(ps, 150)) > 0 {
			t.Fatalf("s%03d holds %s", i, short(ps))
		}
	}
}

func TestAutoscalerScaleUpEndsItsOwnFence(t *testing.T) {
	e, gate := gatedEnv(t)
	gate.hold()
	if d := e.reconcile(); !d.Written || d.Target != 2 {
		t.Fatalf("decision %+v, want 2 replicas written", d)
	}
	e.create("late", 10) // 5 on pod 1, 5 pending
	if d := e.reconcile(); d.Action != ActionScaleUp || d.Target != 3 || !d.Written {
		t.Fatalf("decision %+v, want a scale-up to 3", d)
	}
	// The informer skips the event of the shrink (a relist) and shows 3
	// at the version the shrink was written at (the fake API server does
	// not bump it on a scale write): only the scale-up itself can have
	// ended the fence.
	set, err := e.c.StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	e.s.ObserveStatefulSet(set)
	e.work()
	gate.release()
	if e.pending() != 0 || len(beyond(e.placementsOf("late"), 2)) == 0 {
		t.Fatalf("pending %d, late on %s; want late's 5 on pod 2", e.pending(), short(e.placementsOf("late")))
	}
}

func TestAutoscalerGrowingPastMaxReplicasReportsPendingOnce(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.MaxReplicas = 2
	}})
	e.create("a", 15)
	e.create("b", 10)
	d := e.reconcile()
	want := []SourcePending{{Source: e.key("b"), Pending: 5}}
	if d.Action != ActionScaleUp || d.Target != 2 || fmt.Sprint(d.PendingAtMax) != fmt.Sprint(want) {
		t.Fatalf("decision %+v, want a scale-up to 2 with %v pending at max-replicas", d, want)
	}
	e.settle()
	e.work()
	for cycle := 0; cycle < 2; cycle++ {
		d = e.reconcile()
		if d.Action != ActionHold || fmt.Sprint(d.PendingAtMax) != fmt.Sprint(want) || e.pending() != 5 {
			t.Fatalf("cycle %d: %+v, pending %d", cycle, d, e.pending())
		}
	}
	if evs := e.events(); countPrefix(evs, "Warning "+ReasonMaxReplicasExceeded) != 1 {
		t.Fatalf("events = %q, want one %s", evs, ReasonMaxReplicasExceeded)
	}
}
