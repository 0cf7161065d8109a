package autoscaler

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/statefulset"
)

func mi(n int64) resource.Quantity { return *resource.NewQuantity(n<<20, resource.BinarySI) }

func memory(n int64) corev1.ResourceList { return corev1.ResourceList{corev1.ResourceMemory: mi(n)} }

// hotEnv is one node with three pods of 10 slots and 1Gi, the pods' usage
// read from the cluster, and three sources on pod 0 with declared costs:
// heavy 2 x 300Mi, mid 3 x 100Mi, light 2 x 50Mi (1000Mi in all);
// min-replicas 3.
func hotEnv(t *testing.T, cfg func(*config.AutoscalerConfig)) *asEnv {
	t.Helper()
	e := newEnv(t, envOpts{replicas: 3, zones: []string{"z1"}, nodesPerZone: 1, profiles: packProfiles(t),
		scheduler: func(c *statefulset.Config) { c.PodResources = memory(1024) },
		config: func(c *config.AutoscalerConfig) {
			c.MinReplicas = 3 // the size stays: only the shed moves anything
			if cfg != nil {
				cfg(c)
			}
		}})
	e.a.cfg.PodUsage = e.c.UsageReader()
	for _, s := range []struct {
		name string
		n    int32
		cost int64
	}{{"heavy", 2, 300}, {"mid", 3, 100}, {"light", 2, 50}} {
		if _, err := e.src.Create(e.key(s.name), s.n); err != nil {
			t.Fatal(err)
		}
		if _, err := e.src.SetCost(e.key(s.name), memory(s.cost)); err != nil {
			t.Fatal(err)
		}
		e.schedule(e.key(s.name))
	}
	for _, name := range []string{"heavy", "mid", "light"} {
		if ps := e.placementsOf(name); len(ps) != 1 || ps[0].PodName != e.c.PodName(0) {
			t.Fatalf("%s placed on %v, want all on pod 0", name, ps)
		}
	}
	return e
}

// hotFor reports pod 0's usage as mem for d, in steps of 30s (a cycle
// each), and returns the cycles' reports.
func (e *asEnv) hotFor(mem int64, d time.Duration) []Report {
	var out []Report
	for end := e.clk.Now().Add(d); !e.clk.Now().After(end); e.step(30 * time.Second) {
		e.c.SetPodUsage(0, memory(mem))
		out = append(out, e.reconcile())
	}
	return out
}

func TestHotPodShedsNothingWithinTheGrace(t *testing.T) {
	e := hotEnv(t, nil)
	// 95% of 1Gi for 4m30s, then 80%: it stops being hot before the 5m.
	e.hotFor(973, 4*time.Minute+30*time.Second)
	e.hotFor(820, time.Minute)
	if ev := e.events(); countPrefix(ev, "Warning "+ReasonPodHot) != 0 {
		t.Errorf("events %v: a pod hot for less than the grace shed", ev)
	}
	if got := e.evicted.history(); len(got) != 0 {
		t.Errorf("requeued %v; want nothing", got)
	}
	if e.draining(0) {
		t.Error("pod 0 drains")
	}
}

func TestHotPodShedsTheFewestPastTheGrace(t *testing.T) {
	e := hotEnv(t, nil)
	// 990Mi over a limit of 921.6Mi (90% of 1Gi): 68.4Mi must go, one
	// vreplica of heavy (300Mi) is the fewest.
	e.hotFor(990, 5*time.Minute)
	if ev := e.events(); countPrefix(ev, "Warning "+ReasonPodHot) != 1 {
		t.Fatalf("events %v; want one %s", ev, ReasonPodHot)
	}
	if r := e.a.Marks()[0]; r != evictor.ReasonHot {
		t.Fatalf("pod 0 marked %q, want %q", r, evictor.ReasonHot)
	}
	if diff := cmp.Diff([]string{"heavy"}, names(e.evicted.history())); diff != "" {
		t.Errorf("requeued (-want +got):\n%s", diff)
	}
	e.work()
	want := map[string][]vsched.Placement{
		"heavy": {e.on(0, 1), e.on(1, 1)},
		"mid":   {e.on(0, 3)},
		"light": {e.on(0, 2)},
	}
	e.checkPlacements(want)
	// The moves are made: the drain is lifted, and the pod starts over.
	e.step(30 * time.Second)
	e.c.SetPodUsage(0, memory(700))
	e.reconcile()
	if _, ok := e.a.Marks()[0]; ok {
		t.Errorf("pod 0 still marked once its shed is done (marks %v)", e.a.Marks())
	}
	if err := e.c.WaitFor(e.ctx, func() bool { return e.podAnnotation(0) == "" && !e.draining(0) }); err != nil {
		t.Errorf("pod 0 still drains once its shed is done: %v", err)
	}
}

func names(keys []types.NamespacedName) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Name
	}
	return out
}

// on is a placement of n vreplicas on the one node's pod ord.
func (e *asEnv) on(ord, n int32) vsched.Placement {
	return vsched.Placement{PodName: e.c.PodName(ord), ZoneName: "z1", NodeName: "node-z1-0", VReplicas: n}
}

func TestHotPodShedsWithinTheMoveLimits(t *testing.T) {
	e := hotEnv(t, func(c *config.AutoscalerConfig) { c.MaxMovesPerCycle, c.MaxMovesPerSource = 2, 1 })
	// 1500Mi: 578.4Mi over. Two of heavy would do, but one per source
	// and two per cycle allow one of heavy and one of mid (400Mi).
	e.hotFor(1500, 5*time.Minute)
	if diff := cmp.Diff([]string{"heavy", "mid"}, names(e.evicted.history())); diff != "" {
		t.Errorf("requeued (-want +got):\n%s", diff)
	}
	e.work()
	want := map[string][]vsched.Placement{
		"heavy": {e.on(0, 1), e.on(1, 1)},
		"mid":   {e.on(0, 2), e.on(1, 1)},
		"light": {e.on(0, 2)},
	}
	e.checkPlacements(want)
	if ev := e.events(); countPrefix(ev, "Warning "+ReasonPodHot) != 1 {
		t.Errorf("events %v; want one %s", ev, ReasonPodHot)
	}
}

func TestHotPodShedsNothingOnUnknownUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		// usage sets pod 0's usage (or not) before each cycle.
		usage func(e *asEnv, cycle int)
	}{
		{"stale: measured once, then no more", func(e *asEnv, cycle int) {
			if cycle == 0 {
				e.c.SetPodUsage(0, memory(990))
			}
		}},
		{"the reader fails", func(e *asEnv, cycle int) {
			e.c.SetPodUsage(0, memory(990))
			e.c.FailUsage(errors.New("metrics-server is down"))
		}},
		{"the pod is not measured", func(e *asEnv, cycle int) {
			e.c.SetPodUsage(0, memory(990))
			e.c.ClearPodUsage(0)
		}},
		{"a failing read interrupts the run", func(e *asEnv, cycle int) {
			e.c.SetPodUsage(0, memory(990))
			e.c.FailUsage(nil)
			if cycle%6 == 5 {
				e.c.FailUsage(errors.New("metrics-server is down"))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := hotEnv(t, nil)
			for cycle := 0; cycle < 16; cycle++ { // 7m30s
				tc.usage(e, cycle)
				e.reconcile()
				e.step(30 * time.Second)
			}
			if ev := e.events(); countPrefix(ev, "Warning "+ReasonPodHot) != 0 {
				t.Errorf("events %v: shed on unknown usage", ev)
			}
			if got := e.evicted.history(); len(got) != 0 {
				t.Errorf("requeued %v; want nothing", got)
			}
		})
	}
}
