package autoscaler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/statefulset"
)

// TestHotPodShedAvoidsHotDestinations: pod 0 (hotEnv) is at 990Mi and sheds
// one vreplica of heavy (300Mi); pod 1, where the scheduler packs it by
// declared costs alone, is measured at some usage, pod 2 at 100Mi. A
// destination measured over the hot-pod limit (921.6Mi, 90% of 1Gi), or
// that the moved vreplica's cost would take over it, is passed over for
// pod 2; usage that is under it, stale or missing changes nothing.
func TestHotPodShedAvoidsHotDestinations(t *testing.T) {
	for _, tc := range []struct {
		name string
		// pod1 sets pod 1's usage (or not) before cycle i.
		pod1  func(e *asEnv, i int)
		heavy []int32 // ordinal, vreplicas pairs
	}{
		{"pod 1 at 95% is hot", func(e *asEnv, _ int) { e.c.SetPodUsage(1, memory(973)) }, []int32{0, 1, 2, 1}},
		{"pod 1 at 700Mi would pass the limit with 300Mi more", func(e *asEnv, _ int) { e.c.SetPodUsage(1, memory(700)) }, []int32{0, 1, 2, 1}},
		{"pod 1 at 600Mi stays under it with 300Mi more", func(e *asEnv, _ int) { e.c.SetPodUsage(1, memory(600)) }, []int32{0, 1, 1, 1}},
		{"pod 1 at 95% but stale", func(e *asEnv, i int) {
			if i == 0 {
				e.c.SetPodUsage(1, memory(973))
			}
		}, []int32{0, 1, 1, 1}},
		{"pod 1 not measured", func(*asEnv, int) {}, []int32{0, 1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := hotEnv(t, nil)
			for i, end := 0, e.clk.Now().Add(5*time.Minute); !e.clk.Now().After(end); i++ {
				e.c.SetPodUsage(0, memory(990))
				e.c.SetPodUsage(2, memory(100))
				tc.pod1(e, i)
				e.reconcile()
				e.step(30 * time.Second)
			}
			if ev := e.events(); countPrefix(ev, "Warning "+ReasonPodHot) != 1 {
				t.Fatalf("events %v; want one %s", ev, ReasonPodHot)
			}
			e.work()
			var want []vsched.Placement
			for i := 0; i < len(tc.heavy); i += 2 {
				want = append(want, e.on(tc.heavy[i], tc.heavy[i+1]))
			}
			if diff := cmp.Diff(want, e.placementsOf("heavy")); diff != "" {
				t.Errorf("heavy (-want +got):\n%s", diff)
			}
			for name, n := range map[string]int32{"mid": 3, "light": 2} {
				if diff := cmp.Diff([]vsched.Placement{e.on(0, n)}, e.placementsOf(name)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

// TestHotPodShedGrowsPastHotDestinations: pods 1 and 2 are at 95% too, so
// no pod has room for pod 0's shed below the limit: the autoscaler adds a
// pod (new pods are not measured yet) and the shed lands there, where
// without the guard in the fit the vreplica would have waited on the hot
// pod for a room the scheduler refuses.
func TestHotPodShedGrowsPastHotDestinations(t *testing.T) {
	e := hotEnv(t, func(c *config.AutoscalerConfig) { c.MaxReplicas = 5 })
	grew := false
	for end := e.clk.Now().Add(7 * time.Minute); !e.clk.Now().After(end); e.step(30 * time.Second) {
		e.c.SetPodUsage(0, memory(990))
		e.c.SetPodUsage(1, memory(973))
		e.c.SetPodUsage(2, memory(973))
		r := e.reconcile()
		grew = grew || r.Action == ActionScaleUp
		e.settle()
		e.work()
	}
	if !grew || e.specReplicas() != 4 {
		t.Errorf("spec.replicas %d (scaled up: %v); want 4", e.specReplicas(), grew)
	}
	if diff := cmp.Diff([]vsched.Placement{e.on(0, 1), e.on(3, 1)}, e.placementsOf("heavy")); diff != "" {
		t.Errorf("heavy (-want +got):\n%s", diff)
	}
}

// TestHotPodShedsCountEachOthersMoves: pods 0 and 1 are hot (990Mi), each
// with two 300Mi vreplicas of its own source, and shed one each in the
// same cycle. Pod 2, at 550Mi, has room below the limit (921.6Mi) for one
// of them, not two: the samples do not show the first move yet, so the
// second shed counts it and goes to pod 3 (100Mi).
func TestHotPodShedsCountEachOthersMoves(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 4, zones: []string{"z1"}, nodesPerZone: 1, profiles: packProfiles(t),
		scheduler: func(c *statefulset.Config) { c.PodResources = memory(1024) },
		config:    func(c *config.AutoscalerConfig) { c.MinReplicas = 4 }})
	e.a.cfg.PodUsage = e.c.UsageReader()
	for name, ord := range map[string]int32{"a": 0, "b": 1} {
		e.s.Observe(e.src.Put(vsched.PlainVPod{Key: e.key(name), VReplicas: 2, Placements: []vsched.Placement{e.on(ord, 2)}, Cost: memory(300)}))
	}
	for end := e.clk.Now().Add(5 * time.Minute); !e.clk.Now().After(end); e.step(30 * time.Second) {
		for ord, mem := range map[int32]int64{0: 990, 1: 990, 2: 550, 3: 100} {
			e.c.SetPodUsage(ord, memory(mem))
		}
		e.reconcile()
	}
	if ev := e.events(); countPrefix(ev, "Warning "+ReasonPodHot) != 2 {
		t.Fatalf("events %v; want two %s", ev, ReasonPodHot)
	}
	e.work()
	want := map[string][]vsched.Placement{"a": {e.on(0, 1), e.on(2, 1)}, "b": {e.on(1, 1), e.on(3, 1)}}
	e.checkPlacements(want)
}
