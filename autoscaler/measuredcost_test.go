package autoscaler

import (
	"errors"
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/costestimate"
	"github.com/vsched/vsched/statefulset"
)

// measuredEnv is one node with six 4Gi pods, the pods' usage read from
// the cluster and shared by the autoscaler's estimates with the scheduler,
// and four sources placed by hand: a, b and c measure their costs, d
// declares 100Mi and measures the rest, e measures nothing.
func measuredEnv(t *testing.T) (*asEnv, *costestimate.Measured) {
	t.Helper()
	var e *asEnv
	m := costestimate.NewMeasured(costestimate.MeasuredOptions{MaxAge: 10 * time.Minute, Now: func() time.Time { return e.clk.Now() }})
	e = newEnv(t, envOpts{replicas: 6, zones: []string{"z1"}, nodesPerZone: 1, profiles: packProfiles(t),
		scheduler:  func(c *statefulset.Config) { c.PodResources = memory(4096); c.CostEstimates = m },
		autoscaler: func(o *Options) { o.CostEstimates = m },
		config:     func(c *config.AutoscalerConfig) { c.MinReplicas, c.HotPodMemory = 6, 0 }})
	e.a.cfg.PodUsage = e.c.UsageReader()
	for _, v := range []vsched.PlainVPod{
		{Key: e.key("a"), VReplicas: 4, Placements: []vsched.Placement{e.on(0, 2), e.on(1, 1), e.on(3, 1)}, MeasureCost: true},
		{Key: e.key("b"), VReplicas: 5, Placements: []vsched.Placement{e.on(0, 1), e.on(2, 3), e.on(4, 1)}, MeasureCost: true},
		{Key: e.key("c"), VReplicas: 5, Placements: []vsched.Placement{e.on(1, 2), e.on(2, 1), e.on(5, 2)}, MeasureCost: true},
		{Key: e.key("d"), VReplicas: 3, Placements: []vsched.Placement{e.on(1, 1), e.on(4, 2)}, MeasureCost: true, Cost: memory(100)},
		{Key: e.key("e"), VReplicas: 4, Placements: []vsched.Placement{e.on(2, 1), e.on(3, 2), e.on(5, 1)}},
	} {
		e.s.Observe(e.src.Put(v))
	}
	return e, m
}

// trueCost is what one vreplica of each source uses, in Mi.
var trueCost = map[string]int64{"a": 200, "b": 500, "c": 80, "d": 300, "e": 50}

// measure sets each pod's usage to what its vreplicas truly use.
func (e *asEnv) measure() {
	use := map[int32]int64{}
	for name, cost := range trueCost {
		for _, p := range e.placementsOf(name) {
			for ord := int32(0); ord < 6; ord++ {
				if p.PodName == e.c.PodName(ord) {
					use[ord] += int64(p.VReplicas) * cost
				}
			}
		}
	}
	for ord, mem := range use {
		e.c.SetPodUsage(ord, memory(mem))
	}
}

// costOf is the memory cost the scheduler counts for the source, in Mi
// (-1: none).
func (e *asEnv) costOf(name string) float64 {
	e.t.Helper()
	st, err := e.s.CloneLoaded(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	q, ok := st.CostOf(e.key(name))[corev1.ResourceMemory]
	if !ok {
		return -1
	}
	return float64(q.Value()) / (1 << 20)
}

// observeAll has the scheduler observe every source again, as its resync
// does.
func (e *asEnv) observeAll() {
	vs, _ := e.src.List()
	for _, v := range vs {
		e.s.Observe(v)
	}
}

func TestMeasuredCostsReachTheScheduler(t *testing.T) {
	e, m := measuredEnv(t)
	for cycle := 0; cycle < 20; cycle++ {
		e.measure()
		e.reconcile()
		e.step(30 * time.Second)
	}
	e.observeAll()
	for _, name := range []string{"a", "b", "c"} {
		q := m.EstimatedCost(e.key(name))[corev1.ResourceMemory]
		est := float64(q.Value()) / (1 << 20)
		off := math.Abs(est-float64(trueCost[name])) / float64(trueCost[name])
		t.Logf("%s: true %dMi, estimated %.1fMi (%.2f%% off)", name, trueCost[name], est, 100*off)
		if off > 0.02 {
			t.Errorf("%s: estimated %.1fMi, true %dMi: more than 2%% off", name, est, trueCost[name])
		}
		if got := e.costOf(name); got != est {
			t.Errorf("%s: the scheduler counts %.1fMi, want the estimate %.1fMi", name, got, est)
		}
	}
	if got := e.costOf("d"); got != 100 {
		t.Errorf("d: the scheduler counts %.1fMi, want its declared 100Mi (a declaration wins)", got)
	}
	if got := e.costOf("e"); got != -1 {
		t.Errorf("e: the scheduler counts %.1fMi, want no cost (it does not opt in)", got)
	}

	// The usage stops: the estimates stay for MaxAge, then expire once.
	e.c.FailUsage(errors.New("metrics-server is down"))
	e.events()
	for cycle := 0; cycle < 18; cycle++ { // 9m
		e.reconcile()
		e.step(30 * time.Second)
	}
	if m.EstimatedCost(e.key("a")) == nil {
		t.Fatal("the estimates expired within MaxAge")
	}
	for cycle := 0; cycle < 4; cycle++ {
		e.reconcile()
		e.step(30 * time.Second)
	}
	if ev := e.events(); countPrefix(ev, "Warning "+ReasonCostEstimatesExpired) != 1 {
		t.Errorf("events %v; want one %s", ev, ReasonCostEstimatesExpired)
	}
	e.observeAll()
	if got := e.costOf("a"); got != -1 || m.EstimatedCost(e.key("a")) != nil {
		t.Errorf("a: the scheduler counts %.1fMi after the estimates expired, want no cost", got)
	}
	if got := e.costOf("d"); got != 100 {
		t.Errorf("d: the scheduler counts %.1fMi after the estimates expired, want its declared 100Mi", got)
	}
}
