package autoscaler

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/statefulset"
)

// A scale-down vsched did not make (an apply of a manifest's replicas: 0
// in place, kubectl scale) that leaves placed vreplicas on ordinals at or
// above the new size is restored like a StatefulSet created again: the
// autoscaler writes back the size the placements need, and every source
// keeps its placements. One that strands nothing is left alone.

// outsideCase is one scale-down from outside and what must follow.
type outsideCase struct {
	name string
	// replicas is the size before, capacity the pods' (10 when 0);
	// sources the sources' vreplicas, created in order.
	replicas, capacity int32
	sources            []int32
	// to is the size written from outside; the pods follow (the
	// StatefulSet controller acts) unless podsStay.
	to       int32
	podsStay bool
	// lag holds the StatefulSet's watch events over the outside write
	// and the autoscaler cycles before they are released.
	lag bool
	// failWrites fails that many scale writes of the autoscaler with a
	// transient error.
	failWrites int32
	// restart replaces the controller (a new process, a new leader)
	// after the outside write, before it has seen anything; handover
	// passes the lead to another replica that saw it as a follower.
	restart, handover bool
	// want is the size once settled; restored says whether a
	// StatefulSetRestored Event says so.
	want     int32
	restored string
}

func TestOutsideScaleDown(t *testing.T) {
	restored := func(from, to int32) string {
		return fmt.Sprintf("Normal StatefulSetRestored scaled from %d to %d replicas: the StatefulSet was scaled to %d replica(s) from outside vsched, below the %d pod(s) its sources hold; restoring them", from, to, from, to)
	}
	tests := []outsideCase{{
		name: "to zero under 6 vreplicas over 3 zones", replicas: 3, sources: []int32{6},
		to: 0, want: 3, restored: restored(0, 3),
	}, {
		name: "to zero, pods not removed yet", replicas: 3, sources: []int32{6},
		to: 0, podsStay: true, want: 3, restored: restored(0, 3),
	}, {
		name: "to a size that strands some", replicas: 6, sources: []int32{9, 9, 9, 9, 9, 9},
		to: 4, want: 6, restored: restored(4, 6),
	}, {
		name: "stranding nothing is left alone", replicas: 6, sources: []int32{6},
		to: 3, want: 3,
	}, {
		name: "to zero, seen late", replicas: 3, sources: []int32{6},
		to: 0, lag: true, want: 3, restored: restored(0, 3),
	}, {
		name: "stranding some, seen late", replicas: 6, sources: []int32{9, 9, 9, 9, 9, 9},
		to: 4, lag: true, want: 6, restored: restored(4, 6),
	}, {
		name: "to zero, the restore's write failing twice", replicas: 3, sources: []int32{6},
		to: 0, failWrites: 2, want: 3, restored: restored(0, 3),
	}, {
		name: "to zero, seen late, the write failing", replicas: 3, sources: []int32{6},
		to: 0, lag: true, failWrites: 1, want: 3, restored: restored(0, 3),
	}, {
		name: "to zero while the controller is down", replicas: 3, sources: []int32{6},
		to: 0, restart: true, want: 3, restored: restored(0, 3),
	}, {
		name: "stranding some while the controller is down", replicas: 6, sources: []int32{9, 9, 9, 9, 9, 9},
		to: 4, restart: true, want: 6, restored: restored(4, 6),
	}, {
		name: "stranding nothing while the controller is down", replicas: 6, sources: []int32{6},
		to: 3, restart: true, want: 3,
	}, {
		// The new controller first sees 0 replicas and tracks 64
		// ordinals; the placements above count all the same.
		name: "to zero while the controller is down, 70 pods", replicas: 70, capacity: 1, sources: []int32{70},
		to: 0, restart: true, want: 70, restored: restored(0, 70),
	}, {
		name: "to zero across a leader change", replicas: 3, sources: []int32{6},
		to: 0, handover: true, want: 3, restored: restored(0, 3),
	}, {
		name: "stranding some across a leader change, seen late, the write failing", replicas: 6, sources: []int32{9, 9, 9, 9, 9, 9},
		to: 4, handover: true, lag: true, failWrites: 1, want: 6, restored: restored(4, 6),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runOutsideCase(t, tc) })
	}
}

func runOutsideCase(t *testing.T, tc outsideCase) {
	logs := &logLines{}
	e := newEnv(t, envOpts{replicas: tc.replicas, capacity: tc.capacity, scheduler: logs.into, notLeader: tc.handover})
	var next replica
	if tc.handover {
		if err := e.s.Promote(reconciler.UniversalBucket(), nil); err != nil {
			t.Fatal(err)
		}
		next = e.addReplica(false, nil)
	}
	var failing atomic.Int32
	failing.Store(-1) // not yet: the sources' placing may scale too
	e.c.Client().PrependReactor("update", "statefulsets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "scale" && failing.Add(-1) >= 0 {
			return true, nil, apierrors.NewServiceUnavailable("etcd leader changed")
		}
		return false, nil, nil
	})
	names := make([]string, len(tc.sources))
	for i, v := range tc.sources {
		names[i] = fmt.Sprintf("s%d", i)
		e.create(names[i], v)
	}
	e.settle()
	e.work()
	if e.pending() != 0 || e.specReplicas() != tc.replicas {
		t.Fatalf("before the scale-down: %d pending, %d replicas; want 0 and %d", e.pending(), e.specReplicas(), tc.replicas)
	}
	before := map[string]string{}
	for _, n := range names {
		before[n] = short(e.placementsOf(n))
	}
	e.events()
	e.mu.Lock()
	e.results = map[types.NamespacedName][][]vsched.Placement{}
	e.mu.Unlock()

	if tc.lag {
		e.c.Hold(memcluster.KindStatefulSet)
	}
	if tc.restart {
		e.s.Close()
	}
	// Outside vsched: kubectl apply of a manifest saying replicas: to.
	if err := e.c.SetReplicas(tc.to); err != nil {
		t.Fatal(err)
	}
	if !tc.podsStay {
		if err := e.c.ScaleTo(tc.to); err != nil { // the StatefulSet controller
			t.Fatal(err)
		}
	}
	if err := e.c.Sync(e.ctx); err != nil {
		t.Fatal(err)
	}
	if tc.restart {
		e.restart(e.capacity)
	}
	if tc.handover {
		e.s.Demote(reconciler.UniversalBucket())
		if err := next.s.Promote(reconciler.UniversalBucket(), nil); err != nil {
			t.Fatal(err)
		}
		e.use(next)
	}
	failing.Store(tc.failWrites)
	// A resync (or a new leader's promotion) hands every source to its
	// controller before the autoscaler's next cycle.
	e.reconcileSources(true)
	if tc.lag {
		// Cycles while the informer still shows the size before.
		for range 2 {
			e.outsideRound()
		}
		e.c.Release(memcluster.KindStatefulSet)
	}
	for range 4 + int(tc.failWrites) {
		e.outsideRound()
	}

	if got := e.specReplicas(); got != tc.want {
		t.Errorf("spec.replicas = %d once settled, want %d", got, tc.want)
	}
	after := map[string]string{}
	for _, n := range names {
		after[n] = short(e.placementsOf(n))
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("placements after the scale-down to %d and settling (-before +after):\n%s", tc.to, diff)
	}
	e.mu.Lock()
	for k, rs := range e.results {
		for _, ps := range rs {
			if short(ps) != before[k.Name] {
				t.Errorf("%s was decided again as [%s] after the scale-down, having [%s]", k.Name, short(ps), before[k.Name])
			}
		}
	}
	e.mu.Unlock()
	var got []string
	for _, ev := range e.events() {
		if strings.HasPrefix(ev, "Normal StatefulSetRestored") {
			got = append(got, ev)
		}
	}
	var want []string
	if tc.restored != "" {
		want = []string{tc.restored}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StatefulSetRestored Events (-want +got):\n%s", diff)
	}
	if e.pending() != 0 {
		t.Errorf("%d vreplicas pending once settled", e.pending())
	}
	if tc.restart || tc.handover {
		return // the new leader logs elsewhere
	}
	var wantLogs []string
	if tc.restored != "" {
		key := e.c.StatefulSetKey().String()
		wantLogs = []string{
			fmt.Sprintf(`"level"=0 "msg"=%q "replicas"=%d "restoreTo"=%d "statefulset"=%q`, statefulset.LogScaledDownFromOutside, tc.to, tc.want, key),
			fmt.Sprintf(`"level"=0 "msg"=%q "replicas"=%d "statefulset"=%q`, statefulset.LogSizedBack, tc.want, key),
		}
	}
	if diff := cmp.Diff(wantLogs, logs.matching(statefulset.LogScaledDownFromOutside, statefulset.LogSizedBack)); diff != "" {
		t.Errorf("the scheduler's log (-want +got):\n%s", diff)
	}
}

// logLines records a scheduler's log lines as funcr renders them.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) into(c *statefulset.Config) {
	c.Logger = funcr.New(func(_, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lines = append(l.lines, args)
	}, funcr.Options{})
}

// matching returns the lines whose message is one of msgs, rendered.
func (l *logLines) matching(msgs ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		for _, m := range msgs {
			if strings.Contains(line, fmt.Sprintf("%q", m)) {
				out = append(out, line)
			}
		}
	}
	return out
}

// outsideRound is one round of the controllers around the scheduler: an
// autoscaler cycle (a failed write is retried by the next), the
// StatefulSet controller, and the source controller's queue.
func (e *asEnv) outsideRound() {
	e.t.Helper()
	if _, err := e.a.Reconcile(e.ctx); err != nil && !apierrors.IsServiceUnavailable(err) {
		e.t.Fatalf("Reconcile: %v", err)
	}
	if spec := e.specReplicas(); spec != e.c.Replicas() {
		if err := e.c.ScaleTo(spec); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := e.c.Sync(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	e.reconcileSources(false)
}

// reconcileSources plays the source controller over its queues (every
// source when all): a decision refused while the StatefulSet waits to be
// sized back (vsched.ErrStatefulSetMissing) writes nothing and is retried
// by the next round; any other decision is recorded in results.
func (e *asEnv) reconcileSources(all bool) {
	e.t.Helper()
	keys := append(e.requeued.take(), e.evicted.take()...)
	if all {
		vs, err := e.src.List()
		if err != nil {
			e.t.Fatal(err)
		}
		for _, v := range vs {
			keys = append(keys, v.GetKey())
		}
	}
	slices.SortFunc(keys, func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
	for _, k := range slices.Compact(keys) {
		ps, err := e.src.Reconcile(e.ctx, e.s, k)
		switch {
		case errors.Is(err, vsched.ErrStatefulSetMissing):
			continue
		case err != nil && vsched.PendingCount(err) == 0:
			e.t.Fatalf("reconciling %s: %v", k, err)
		}
		e.written(k, ps)
	}
}

// written forwards a source written with the decision ps to the scheduler,
// as its informer would, and records ps in results.
func (e *asEnv) written(k types.NamespacedName, ps []vsched.Placement) {
	if v, err := e.src.Get(k); err == nil {
		e.s.Observe(v)
	}
	e.mu.Lock()
	e.results[k] = append(e.results[k], ps)
	e.mu.Unlock()
}

// TestOwnScaleDownSeenLateIsNotRestored: vsched's own compaction shrinks
// 4 pods to 3, then grows to 5 for new demand, which lands on pods 3 and
// 4; the shrink's event, delivered after (an informer that lags), shows 3
// replicas under vreplicas on 3 and 4, but it is older than the grow:
// nothing waits, nothing is restored, nothing moves.
func TestOwnScaleDownSeenLateIsNotRestored(t *testing.T) {
	e := fragmented(t, envOpts{})
	e.reconcile() // drains pod 3
	e.work()
	if d := e.reconcile(); !d.Written || e.specReplicas() != 3 {
		t.Fatalf("compaction's shrink: %+v, spec.replicas %d; want written, 3", d, e.specReplicas())
	}
	shrunk, err := e.c.StatefulSet() // as the shrink's event shows it
	if err != nil {
		t.Fatal(err)
	}
	e.settle()
	e.create("s4", 15)
	if d := e.reconcile(); !d.Written || e.specReplicas() != 5 {
		t.Fatalf("grow for s4: %+v, spec.replicas %d; want written, 5", d, e.specReplicas())
	}
	e.settle()
	e.work()
	placed := short(e.placementsOf("s4"))
	if placed != "3:10 4:5" {
		t.Fatalf("s4 placed [%s], want [3:10 4:5]", placed)
	}
	e.events()

	e.s.ObserveStatefulSet(shrunk) // the late event
	if to, ok := e.s.RestoreSize(); ok {
		t.Fatalf("RestoreSize() = %d after the autoscaler's own older shrink was seen late; want none", to)
	}
	if why := e.s.StatefulSetMissing(); why != "" {
		t.Fatalf("StatefulSetMissing() = %q after the autoscaler's own older shrink was seen late", why)
	}
	if got := e.s.Replicas(); got != 5 {
		t.Fatalf("the scheduler counts %d replicas after the late event, want 5", got)
	}
	for range 3 {
		e.outsideRound()
	}
	if got := short(e.placementsOf("s4")); got != placed || e.specReplicas() != 5 {
		t.Errorf("after the late event: s4 [%s], spec.replicas %d; want [%s], 5", got, e.specReplicas(), placed)
	}
	if n := countPrefix(e.events(), "Normal StatefulSetRestored"); n != 0 {
		t.Errorf("%d StatefulSetRestored Events for the autoscaler's own shrink", n)
	}
}

// TestOwnScaleDownsUnderLagAreNotRestored: the same compaction, shrink and
// grow with the StatefulSet's events held throughout and released at the
// end, in the order the API server made them: no decision waits (not even
// for an instant: nothing logs a scale-down from outside), and no restore
// is written.
func TestOwnScaleDownsUnderLagAreNotRestored(t *testing.T) {
	logs := &logLines{}
	e := fragmented(t, envOpts{scheduler: logs.into})
	e.c.Hold(memcluster.KindStatefulSet)
	check := func(when string) {
		t.Helper()
		if why := e.s.StatefulSetMissing(); why != "" {
			t.Fatalf("%s: StatefulSetMissing() = %q", when, why)
		}
	}
	for i := range 3 {
		e.outsideRound()
		check(fmt.Sprintf("compaction round %d", i))
	}
	if e.specReplicas() != 3 {
		t.Fatalf("spec.replicas %d after compaction, want 3", e.specReplicas())
	}
	e.create("s4", 15)
	for i := range 3 {
		e.outsideRound()
		check(fmt.Sprintf("growth round %d", i))
	}
	e.c.ReleaseN(memcluster.KindStatefulSet, 1)
	check("the shrink's event delivered")
	e.c.Release(memcluster.KindStatefulSet)
	for i := range 2 {
		e.outsideRound()
		check(fmt.Sprintf("round %d after the release", i))
	}
	if e.pending() != 0 || e.specReplicas() != 5 {
		t.Errorf("%d pending, spec.replicas %d once settled; want 0, 5", e.pending(), e.specReplicas())
	}
	if n := countPrefix(e.events(), "Normal StatefulSetRestored"); n != 0 {
		t.Errorf("%d StatefulSetRestored Events for the autoscaler's own sizes", n)
	}
	if got := logs.matching(statefulset.LogScaledDownFromOutside); len(got) != 0 {
		t.Errorf("the autoscaler's own sizes taken for a scale-down from outside: %q", got)
	}
}

// TestOutsideScaleDownWaits: while the StatefulSet waits to be sized back,
// a decision answers a MissingError that says why and writes nothing, the
// scheduler calls its pending hook once (the autoscaler's Trigger), and the
// autoscaler's cycle restores; recommending only (or paused, the same
// path), it only recommends, and decisions keep waiting.
func TestOutsideScaleDownWaits(t *testing.T) {
	for _, recommendOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("recommend-only=%v", recommendOnly), func(t *testing.T) {
			e := newEnv(t, envOpts{replicas: 3})
			e.create("s0", 6)
			e.settle()
			before := short(e.placementsOf("s0"))
			var hooked atomic.Int32
			e.s.SetPendingHook(func() { hooked.Add(1) })
			if recommendOnly {
				e.setConfig(func(c *config.AutoscalerConfig) { c.RecommendOnly = true })
			}
			if err := e.c.SetReplicas(0); err != nil {
				t.Fatal(err)
			}
			if err := e.c.Sync(e.ctx); err != nil {
				t.Fatal(err)
			}
			_, err := e.src.Reconcile(e.ctx, e.s, e.key("s0"))
			var missing *vsched.MissingError
			why := "StatefulSet vsched/adapter was scaled to 0 replica(s) from outside vsched, below the 3 pod(s) its sources hold; waiting for it to be sized back to 3"
			if !errors.As(err, &missing) || missing.Why != why {
				t.Fatalf("Schedule after the scale-down: %v; want a MissingError saying %q", err, why)
			}
			if got := short(e.placementsOf("s0")); got != before {
				t.Fatalf("s0's status [%s] after the refused decision, want [%s]", got, before)
			}
			if to, ok := e.s.RestoreSize(); !ok || to != 3 || !e.s.ScaledDownFromOutside() {
				t.Fatalf("RestoreSize() = %d, %v, ScaledDownFromOutside() = %v; want 3, true, true", to, ok, e.s.ScaledDownFromOutside())
			}
			if n := hooked.Load(); n != 1 {
				t.Fatalf("pending hook called %d times, want once", n)
			}
			d := e.reconcile()
			reason := "the StatefulSet was scaled to 0 replica(s) from outside vsched, below the 3 pod(s) its sources hold; restoring them"
			want := Report{Action: ActionScaleUp, Reason: reason, Current: 0, Desired: 3, Target: 3, Written: !recommendOnly, RecommendOnly: recommendOnly}
			got := Report{Action: d.Action, Reason: d.Reason, Current: d.Current, Desired: d.Desired, Target: d.Target, Written: d.Written, RecommendOnly: d.RecommendOnly}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("the cycle's report (-want +got):\n%s", diff)
			}
			_, waiting := e.s.RestoreSize()
			if wantSpec := map[bool]int32{false: 3, true: 0}[recommendOnly]; e.specReplicas() != wantSpec || waiting != recommendOnly {
				t.Fatalf("spec.replicas %d, still waiting %v; want %d, %v", e.specReplicas(), waiting, wantSpec, recommendOnly)
			}
		})
	}
}
