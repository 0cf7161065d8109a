package autoscaler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/statefulset"
)

// TestHotPodsSharingASourceShedTheFewest: two hot pods hold the same
// source. Each one's shed bounds that source's moves, and the source's
// quota is one for the two: each pod must lose exactly its own share of
// the plan, however the cycles and Schedule calls interleave (found by the
// e2e scenario TestMetricsAPIHotPod, where three pods holding two of a
// heavy source each lost two, not one, and made two other pods hot).
func TestHotPodsSharingASourceShedTheFewest(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 4, zones: []string{"z1"}, nodesPerZone: 1, profiles: packProfiles(t),
		scheduler: func(c *statefulset.Config) { c.PodResources = memory(1024) },
		config:    func(c *config.AutoscalerConfig) { c.MinReplicas = 4 }})
	e.a.cfg.PodUsage = e.c.UsageReader()
	// heavy: 4 x 400Mi, two to a pod (1Gi) on pods 0 and 1.
	if _, err := e.src.Create(e.key("heavy"), 4); err != nil {
		t.Fatal(err)
	}
	if _, err := e.src.SetCost(e.key("heavy"), memory(400)); err != nil {
		t.Fatal(err)
	}
	e.schedule(e.key("heavy"))
	if diff := cmp.Diff([]vsched.Placement{e.on(0, 2), e.on(1, 2)}, e.placementsOf("heavy")); diff != "" {
		t.Fatalf("heavy placed (-want +got):\n%s", diff)
	}
	// Both at 990Mi, over 921.6Mi: one heavy vreplica (400Mi) each is the
	// fewest. The usage stays as it was (the measurement lags the moves)
	// for less than a second grace after the sheds. What a pod sheds may
	// come back to it later (the scheduler packs by declared costs), so
	// the check is on the least each pod held.
	least := map[string]int32{e.c.PodName(0): 2, e.c.PodName(1): 2}
	for end := e.clk.Now().Add(8 * time.Minute); !e.clk.Now().After(end); e.step(30 * time.Second) {
		e.c.SetPodUsage(0, memory(990))
		e.c.SetPodUsage(1, memory(990))
		e.reconcile()
		e.work()
		held := map[string]int32{}
		for _, p := range e.placementsOf("heavy") {
			held[p.PodName] += p.VReplicas
		}
		for pod, n := range least {
			least[pod] = min(n, held[pod])
		}
	}
	if diff := cmp.Diff(map[string]int32{e.c.PodName(0): 1, e.c.PodName(1): 1}, least); diff != "" {
		t.Errorf("the least of heavy each hot pod held (-want +got): one moved off each, no more:\n%s", diff)
	}
	if ev := e.events(); countPrefix(ev, "Warning "+ReasonPodHot) != 2 {
		t.Errorf("events %v; want two %s", ev, ReasonPodHot)
	}
}

// TestHotPodKeepsWhatOthersHoldWhileItSheds: while pod 0 is marked hot for
// its shed (one vreplica of heavy), mid, which the plan does not move, is
// scheduled for another reason (a resync, a spec change): it stays on the
// pod, so the pod loses only the fewest (found by TestMetricsAPIHotPod,
// where the informers' resync during a shed moved every light vreplica
// off the hot pod).
func TestHotPodKeepsWhatOthersHoldWhileItSheds(t *testing.T) {
	e := hotEnv(t, nil)
	e.hotFor(990, 5*time.Minute)
	if err := e.c.WaitFor(e.ctx, func() bool { return e.podAnnotation(0) == "hot" && e.draining(0) }); err != nil {
		t.Fatalf("pod 0 not marked hot: %v", err)
	}
	e.schedule(e.key("mid"))
	e.work()
	want := map[string][]vsched.Placement{
		"heavy": {e.on(0, 1), e.on(1, 1)},
		"mid":   {e.on(0, 3)},
		"light": {e.on(0, 2)},
	}
	e.checkPlacements(want)
}
