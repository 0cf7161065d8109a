package autoscaler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/plugins"
)

// packProfiles is a scheduler profile that does not spread over zones:
// capacity, then lowest ordinal first.
func packProfiles(t testing.TB) config.ProfilesSource {
	t.Helper()
	sched := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultSchedulerConfigMapName}, Data: map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	}}
	ps, err := config.ProfilesFromConfigMaps(context.Background(), inTree, sched, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// asKafkaHA is the design's Kafka HA scheduler profile.
var asKafkaHA = map[string]string{
	"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount", "Args": "{\"NumPartitions\": 100}"}]`,
	"priorities": `[{"Name": "AvailabilityZonePriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		{"Name": "LowestOrdinalPriority", "Weight": 2}, {"Name": "EvenPodSpread", "Weight": 2, "Args": "{\"MaxSkew\": 2}"}]`,
}

// asProfiles builds profiles from config-scheduler data.
func asProfiles(t testing.TB, sched map[string]string) config.ProfilesSource {
	t.Helper()
	return profilesFromData(t, sched, nil)
}

// profilesFromData builds profiles from config-scheduler and
// config-descheduler data; nil means the default policy.
func profilesFromData(t testing.TB, sched, desched map[string]string) config.ProfilesSource {
	t.Helper()
	sc, dc := plugins.DefaultPlaceConfig(), plugins.DefaultRemoveConfig()
	var err error
	if sched != nil {
		if sc, err = config.ParsePlaceConfigMapFromData(sched, inTree); err != nil {
			t.Fatal(err)
		}
	}
	if desched != nil {
		if dc, err = config.ParseRemoveConfigMapFromData(desched, inTree); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := config.BuildProfiles(context.Background(), inTree, sc, dc)
	if err != nil {
		t.Fatal(err)
	}
	return config.ProfilesFrom(ps)
}

// designDescheduler is the descheduler profile of the design document.
var designDescheduler = map[string]string{"priorities": `[{"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 10, "Args": {"MaxSkew": 2}},
	{"Name": "RemoveWithAvailabilityZonePriority", "Weight": 10, "Args": {"MaxSkew": 2}}, {"Name": "RemoveWithHighestOrdinalPriority", "Weight": 2}]`}

func TestAutoscalerBurstScalesUpOnceToExactSize(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t)})
	// 47 vreplicas arrive at once over 6 sources; one pod of 10 exists.
	for i, n := range []int32{9, 8, 8, 8, 7, 7} {
		e.create(fmt.Sprintf("s%d", i), n)
	}
	if p := e.pending(); p != 37 {
		t.Fatalf("pending = %d, want 37", p)
	}
	d := e.reconcile()
	if d.Action != ActionScaleUp || d.Target != 5 || !d.Written {
		t.Fatalf("decision = %+v, want a written scale-up to 5", d)
	}
	if got := e.specReplicas(); got != 5 {
		t.Fatalf("spec.replicas = %d, want 5", got)
	}
	// Triggers arriving while the pods start (the informer may still say
	// 1 replica) change nothing: the starting pods are paid for.
	for i := 0; i < 3; i++ {
		e.a.Trigger()
		d = e.reconcile()
		if d.Written {
			t.Fatalf("cycle %d wrote again: %+v", i, d)
		}
	}
	e.settle()
	d = e.reconcile()
	if d.Written || d.Target != 5 {
		t.Fatalf("after the pods started: %+v", d)
	}
	e.work()
	if p := e.pending(); p != 0 {
		t.Fatalf("pending after the scale-up = %d, want 0", p)
	}
	if n := e.scaleUpdates(); n != 1 {
		t.Fatalf("%d StatefulSet scale updates, want exactly 1", n)
	}
	evs := e.events()
	if countPrefix(evs, "Normal ScaledUp") != 1 || !strings.Contains(evs[0], "pending 37 vreplica(s)") {
		t.Fatalf("events = %q", evs)
	}
	if a := e.annotations(); a[AnnotationLastScaleUp] == "" {
		t.Fatalf("last scale-up not recorded: %v", a)
	}
}

func TestAutoscalerHARoundsToZones(t *testing.T) {
	// The default profile spreads over zones: 4 pods' worth of vreplicas
	// in 3 zones takes 6 pods.
	e := newEnv(t, envOpts{replicas: 1})
	for i := 0; i < 4; i++ {
		e.create(fmt.Sprintf("s%d", i), 9)
	}
	d := e.reconcile()
	if d.Fit != 4 || d.Target != 6 || d.Desired != 6 {
		t.Fatalf("decision = %+v, want fit 4 rounded to 6", d)
	}
	e.settle()
	e.work()
	if p := e.pending(); p != 0 {
		t.Fatalf("pending = %d", p)
	}
	// Every zone got two of the new pods.
	zones := map[string]int{}
	for _, p := range e.s.Pods() {
		zones[p.Zone]++
	}
	for z, n := range zones {
		if n != 2 {
			t.Fatalf("zone %s has %d pods, want 2 (%v)", z, n, zones)
		}
	}
}

func TestAutoscalerMaxReplicasCapsAndPendingStaysReported(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) { c.MaxReplicas = 3 }})
	e.create("big", 50)
	d := e.reconcile()
	if d.Target != 3 || !d.Written {
		t.Fatalf("decision = %+v, want 3 (max)", d)
	}
	e.settle()
	e.work()
	d = e.reconcile()
	if d.Current != 3 || d.Target != 3 || d.Written {
		t.Fatalf("at max: %+v", d)
	}
	if d.Pending != 20 || d.Unplaced != 20 {
		t.Fatalf("pending = %d unplaced = %d, want 20 reported", d.Pending, d.Unplaced)
	}
	if p := e.pending(); p != 20 {
		t.Fatalf("scheduler pending = %d, want 20", p)
	}
}

func TestAutoscalerMaxScaleUpRate(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) { c.MaxScaleUpRate = 2 }})
	e.create("big", 100)
	d := e.reconcile()
	if d.Desired != 10 || d.Target != 4 {
		t.Fatalf("decision = %+v, want desired 10 bounded to 4", d)
	}
}

// With a profile spreading over zones, a rate-limited step still lands on a
// multiple of the zones: from 0 the first step gives every zone a pod, not
// one pod to a single zone that a zone spread would then be held to.
func TestAutoscalerMaxScaleUpRateKeepsZoneMultiple(t *testing.T) {
	cases := []struct {
		name        string
		replicas    int32
		wantDesired int32
		wantTarget  int32
	}{
		// 100 vreplicas: 10 pods, rounded to 12; the rate allows 1, rounded to 3.
		{name: "from zero", replicas: 0, wantDesired: 12, wantTarget: 3},
		// From 3 the rate allows 6, already a multiple of 3.
		{name: "from three", replicas: 3, wantDesired: 12, wantTarget: 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOpts{replicas: tc.replicas, zones: []string{"zone-a", "zone-b", "zone-c"}, nodesPerZone: 2,
				config: func(c *config.AutoscalerConfig) { c.MaxScaleUpRate = 2 }})
			e.create("big", 100)
			d := e.reconcile()
			if d.Desired != tc.wantDesired || d.Target != tc.wantTarget {
				t.Fatalf("decision desired %d target %d, want desired %d bounded to %d (%+v)", d.Desired, d.Target, tc.wantDesired, tc.wantTarget, d)
			}
		})
	}
}

func TestAutoscalerScaleDownWaitsForWindowAndCooldown(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow = 5 * time.Minute
		c.ScaleDownCooldown = 8 * time.Minute
	}})
	e.create("a", 25)
	if d := e.reconcile(); d.Target != 3 {
		t.Fatalf("scale-up: %+v", d)
	}
	e.settle()
	e.work()
	scaledUpAt := e.clk.Now()
	// Demand drops: 2 pods would do. a is on 0..2 (10, 10, 5); shrinking
	// it removes from the highest ordinal first.
	e.update("a", 15)
	d := e.reconcile()
	if d.Action != ActionHold || d.Desired != 2 {
		t.Fatalf("right after the drop: %+v", d)
	}
	since := d.ScaleDownSince
	if !since.Equal(scaledUpAt) {
		t.Fatalf("scale-down-since = %v, want %v", since, scaledUpAt)
	}
	if a := e.annotations(); a[AnnotationScaleDownSince] == "" {
		t.Fatalf("scale-down-since not written: %v", a)
	}
	// Window over at 5m, but the cooldown runs until 8m.
	e.step(6 * time.Minute)
	d = e.reconcile()
	if d.Action != ActionHold || !strings.Contains(d.Reason, "cooldown") || !d.ScaleDownSince.Equal(since) {
		t.Fatalf("at 6m: %+v", d)
	}
	e.step(2 * time.Minute)
	d = e.reconcile()
	if d.Action == ActionCompact {
		// a's vreplicas on pod 2 move first.
		e.work()
		d = e.reconcile()
	}
	if d.Action != ActionScaleDown || d.Target != 2 || !d.Written {
		t.Fatalf("at 8m: %+v", d)
	}
	if evs := e.events(); countPrefix(evs, "Normal ScaledDown") != 1 {
		t.Fatalf("events = %q", evs)
	}
}

func TestAutoscalerWindowRestartsWhenDemandReturns(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) { c.ScaleDownCooldown = 0 }})
	e.create("a", 25)
	e.update("a", 15)
	if d := e.reconcile(); d.Action != ActionHold {
		t.Fatalf("%+v", d)
	}
	e.step(3 * time.Minute)
	e.update("a", 25) // back to 3 pods' worth
	if d := e.reconcile(); d.Action != ActionNone || !d.ScaleDownSince.IsZero() {
		t.Fatalf("demand back: %+v", d)
	}
	if a := e.annotations(); a[AnnotationScaleDownSince] != "" {
		t.Fatalf("scale-down-since still set: %v", a)
	}
	e.update("a", 15)
	e.step(3 * time.Minute)
	if d := e.reconcile(); d.Action != ActionHold {
		t.Fatalf("window must start again: %+v", d)
	}
}

func TestAutoscalerNoScaleDownBelowHeldPods(t *testing.T) {
	// Compaction off: the autoscaler may only remove pods with no
	// committed and no reserved placement.
	e := newEnv(t, envOpts{replicas: 4, profiles: packProfiles(t), noEvictor: true, config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
	}})
	e.create("a", 10) // pod 0
	e.create("b", 10) // pod 1
	e.create("c", 10) // pod 2
	// c's status says pod 2; the scheduler reserves a move elsewhere that
	// is not written yet: the committed placement still holds pod 2.
	e.update("b", 0)
	e.reserveMove("c", 2, 1, 10)
	d := e.reconcile()
	if d.Target != 3 {
		t.Fatalf("decision = %+v, want to keep 3 pods while pod 2 holds a committed placement", d)
	}
	e.settle()
	// The reservation is written: pod 2 is empty, and pod 3 too.
	if err := e.src.CommitPlacements(e.key("c"), e.rv("c"), []vsched.Placement{{PodName: vsched.PodName(testSetName(e), 1), VReplicas: 10}}); err != nil {
		t.Fatal(err)
	}
	v, _ := e.src.Get(e.key("c"))
	e.s.Observe(v)
	d = e.reconcile()
	if d.Target != 2 || !d.Written {
		t.Fatalf("decision = %+v, want 2", d)
	}
}

func testSetName(e *asEnv) string { return e.c.StatefulSetName() }

// reserveMove makes the scheduler reserve the move of the source's
// vreplicas from pod from to pod to without writing it, the way a move
// arises: from is marked draining while the source is scheduled, the
// result is not committed, and the mark is lifted.
func (e *asEnv) reserveMove(name string, from, to, vreplicas int32) {
	e.t.Helper()
	if !e.s.MarkDraining(from) {
		e.t.Fatalf("pod %d is not tracked", from)
	}
	v, err := e.src.Get(e.key(name))
	if err != nil {
		e.t.Fatal(err)
	}
	ps, err := e.s.Schedule(e.ctx, v)
	e.s.UnmarkDraining(from)
	if err != nil {
		e.t.Fatal(err)
	}
	wantPlacements(e.t, ps, to, vreplicas)
	sv, _ := e.s.Source(e.key(name))
	wantPlacements(e.t, sv.Committed, from, vreplicas)
	wantPlacements(e.t, sv.Reserved, to, vreplicas)
}
