package autoscaler

import (
	"fmt"
	"testing"
	"time"

	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/evictor"
)

// fragmented builds 4 pods of capacity 10 holding 30 vreplicas that would
// fit on 3: s0 and s1 hold 5 each on pods 0 and 1, s2 and s3 hold 10 each on
// pods 2 and 3.
func fragmented(t *testing.T, o envOpts) *asEnv {
	t.Helper()
	o.replicas = 4
	if o.profiles == nil {
		o.profiles = packProfiles(t)
	}
	cfgf := o.config
	o.config = func(c *config.AutoscalerConfig) {
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
		if cfgf != nil {
			cfgf(c)
		}
	}
	e := newEnv(t, o)
	if o.notLeader {
		if err := e.s.Promote(reconciler.UniversalBucket(), nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 4; i++ {
		e.create(fmt.Sprintf("s%d", i), 10)
	}
	e.update("s0", 5)
	e.update("s1", 5)
	want := map[int32]int32{0: 5, 1: 5, 2: 10, 3: 10}
	if got := e.usedOn(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("setup: used = %v, want %v", got, want)
	}
	return e
}

func (e *asEnv) podAnnotation(ord int32) string {
	e.t.Helper()
	p, err := e.c.Pod(ord)
	if err != nil {
		return "<no pod>"
	}
	return p.Annotations[evictor.DefaultAnnotation]
}

func TestAutoscalerCompactionDrainsMovesThenShrinks(t *testing.T) {
	e := fragmented(t, envOpts{})
	d := e.reconcile()
	if d.Action != ActionCompact || d.Desired != 3 || d.Draining[3] != evictor.ReasonCompaction || d.Written {
		t.Fatalf("first cycle: %+v", d)
	}
	if got := e.podAnnotation(3); got != evictor.ReasonCompaction {
		t.Fatalf("pod 3 annotation = %q", got)
	}
	if len(d.Requeued) != 1 || d.Requeued[0] != e.key("s3") {
		t.Fatalf("requeued %v, want s3", d.Requeued)
	}
	if !e.draining(3) {
		t.Fatal("pod 3 is not draining in the scheduler's state")
	}
	before := len(e.results[e.key("s3")])
	e.work()
	// One Schedule call moved all of s3, and its result does not list pod 3.
	res := e.results[e.key("s3")]
	if len(res) != before+1 {
		t.Fatalf("s3 scheduled %d times, want once", len(res)-before)
	}
	got := res[len(res)-1]
	if vsched.TotalVReplicas(got) != 10 || vsched.PlacementForPod(got, vsched.PodName(e.c.StatefulSetName(), 3)) != nil {
		t.Fatalf("s3 placements after the move = %v", got)
	}
	if fmt.Sprint(e.placementsOf("s3")) != fmt.Sprint(got) {
		t.Fatalf("status = %v, want %v", e.placementsOf("s3"), got)
	}
	d = e.reconcile()
	if d.Action != ActionScaleDown || d.Target != 3 || !d.Written || d.Reason != "compaction" {
		t.Fatalf("second cycle: %+v", d)
	}
	e.settle()
	if len(e.a.Marks()) != 0 {
		t.Fatalf("marks left: %v", e.a.Marks())
	}
	evs := e.events()
	if countPrefix(evs, "Normal CompactionStarted") != 1 || countPrefix(evs, "Normal ScaledDown") != 1 {
		t.Fatalf("events = %q", evs)
	}
	// Scaling up again brings pod 3 back fresh: not draining.
	e.create("s4", 15)
	e.reconcile()
	e.settle()
	if e.draining(3) || e.podAnnotation(3) != "" {
		t.Fatalf("recreated pod 3 is draining (annotation %q)", e.podAnnotation(3))
	}
}

func TestAutoscalerCompactionMovesWithinBudget(t *testing.T) {
	// Per source at most 3 vreplicas per Schedule call, and 4 per cycle:
	// s3's 10 vreplicas take several cycles, and every result is whole.
	e := fragmented(t, envOpts{config: func(c *config.AutoscalerConfig) {
		c.MaxMovesPerSource, c.MaxMovesPerCycle = 3, 4
	}})
	cycles := 0
	for ; cycles < 10; cycles++ {
		d := e.reconcile()
		if d.Written {
			break
		}
		if len(d.Requeued) > 1 {
			t.Fatalf("cycle %d requeued %v, over the budget", cycles, d.Requeued)
		}
		before := e.usedOn()[3]
		e.work()
		if moved := before - e.usedOn()[3]; moved > 3 {
			t.Fatalf("cycle %d moved %d vreplicas of s3, want at most 3", cycles, moved)
		}
		if total := vsched.TotalVReplicas(e.placementsOf("s3")); total != 10 {
			t.Fatalf("s3 holds %d vreplicas mid-move, want 10", total)
		}
	}
	if cycles != 4 || e.specReplicas() != 3 {
		t.Fatalf("took %d cycles, replicas %d; want 4 cycles (3+3+3+1 moved) and 3 replicas", cycles, e.specReplicas())
	}
}

func TestAutoscalerCompactionCancelledWhenDemandReturns(t *testing.T) {
	e := fragmented(t, envOpts{})
	if d := e.reconcile(); d.Action != ActionCompact {
		t.Fatalf("%+v", d)
	}
	// Demand returns before s3 moved: s0 wants its 10 back.
	e.evicted.take()
	e.update("s0", 10)
	d := e.reconcile()
	if d.Action != ActionNone || !d.CompactionCancelled || len(d.Draining) != 0 {
		t.Fatalf("after demand returned: %+v", d)
	}
	if err := e.c.WaitFor(e.ctx, func() bool { return e.podAnnotation(3) == "" }); err != nil {
		t.Fatalf("pod 3 annotation still %q", e.podAnnotation(3))
	}
	if err := e.c.WaitFor(e.ctx, func() bool { return !e.draining(3) }); err != nil {
		t.Fatal("pod 3 still draining in the state")
	}
	if evs := e.events(); countPrefix(evs, "Normal CompactionCancelled") != 1 {
		t.Fatalf("events = %q", evs)
	}
	if a := e.annotations(); a[AnnotationScaleDownSince] != "" {
		t.Fatalf("scale-down-since = %q, want cleared", a[AnnotationScaleDownSince])
	}
}

func TestAutoscalerCompactionNeverDrainsWhatCannotMove(t *testing.T) {
	// a has 2 partitions and spans pods 2 and 3, both full; pods 0 and 1
	// have room, but a vreplica of a there would make it span 3 pods.
	// Nothing is drained, however idle pod 1 looks.
	e := newEnv(t, envOpts{replicas: 4, profiles: asProfiles(t, map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount"}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	}), config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
	}})
	e.create("b", 20)
	e.create("a", 20, 2)
	e.update("b", 5)
	if got := e.usedOn(); got[2] != 10 || got[3] != 10 {
		t.Fatalf("setup: used = %v", got)
	}
	d := e.reconcile()
	if d.Action != ActionNone || len(d.Draining) != 0 || d.Written || d.Fit != 4 {
		t.Fatalf("decision = %+v, want nothing drained", d)
	}
}

func TestAutoscalerLeaderChangeMidCompaction(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 4, notLeader: true, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow, c.ScaleDownCooldown = 5*time.Minute, 0
		c.MaxMovesPerSource, c.MaxMovesPerCycle = 4, 4
	}})
	first := replica{s: e.s, a: e.a}
	second := e.addReplica(false, nil)
	bucket := reconciler.UniversalBucket()
	if err := first.s.Promote(bucket, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		e.create(fmt.Sprintf("s%d", i), 10)
	}
	e.update("s0", 5)
	e.update("s1", 5)
	if d := e.reconcile(); d.Action != ActionHold {
		t.Fatalf("%+v", d)
	}
	e.step(5 * time.Minute)
	d := e.reconcile()
	if d.Action != ActionCompact {
		t.Fatalf("%+v", d)
	}
	e.work() // s3 moves 4 of its 10
	if u := e.usedOn()[3]; u != 6 {
		t.Fatalf("pod 3 holds %d, want 6 after one bounded move", u)
	}
	// Leadership moves to the second replica.
	first.s.Demote(bucket)
	if err := second.s.Promote(bucket, nil); err != nil {
		t.Fatal(err)
	}
	e.use(second)
	if d, _ := first.a.Reconcile(e.ctx); d.Action != ActionHold || d.Reason != "not the leader" {
		t.Fatalf("old leader: %+v", d)
	}
	e.step(time.Minute)
	// The new leader finds the drain and the window in the annotations:
	// it goes on moving at once.
	d, err := second.a.Reconcile(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != ActionCompact || d.Draining[3] != evictor.ReasonCompaction || len(d.Requeued) != 1 {
		t.Fatalf("new leader's first cycle: %+v", d)
	}
	for i := 0; i < 5 && e.specReplicas() == 4; i++ {
		e.work()
		e.reconcile()
	}
	if e.specReplicas() != 3 {
		t.Fatalf("replicas = %d, want 3", e.specReplicas())
	}
	var n int64
	for i := 0; i < 4; i++ {
		n += int64(vsched.TotalVReplicas(e.placementsOf(fmt.Sprintf("s%d", i))))
	}
	if n != 30 {
		t.Fatalf("sources hold %d vreplicas, want 30", n)
	}
}

func TestAutoscalerNewLeaderCancelsStaleCompaction(t *testing.T) {
	e := fragmented(t, envOpts{notLeader: true})
	first := replica{s: e.s, a: e.a}
	second := e.addReplica(false, nil)
	bucket := reconciler.UniversalBucket()
	if d := e.reconcile(); d.Action != ActionCompact {
		t.Fatalf("%+v", d)
	}
	first.s.Demote(bucket)
	// Demand returns while no one leads.
	_ = second.s.Promote(bucket, nil)
	e.use(second)
	e.evicted.take()
	e.update("s0", 10)
	d := e.reconcile()
	if !d.CompactionCancelled || len(d.Draining) != 0 {
		t.Fatalf("new leader: %+v", d)
	}
	if err := e.c.WaitFor(e.ctx, func() bool { return e.podAnnotation(3) == "" }); err != nil {
		t.Fatal("annotation not removed")
	}
}
