package autoscaler

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
)

func TestRoomTarget(t *testing.T) {
	cases := []struct {
		occupied                 int64
		current, capacity, usage int32
		want                     int32
	}{
		// 70 of 100 slots at a 50% target: delta (7000-5000)/50 = 40
		// slots, 140 slots = 14 pods.
		{70, 10, 10, 50, 14},
		// 33 of 100 at 70%: (3300-7000)/70 = -52.86, rounded -53: 47
		// slots, 5 pods.
		{33, 10, 10, 70, 5},
		// 1 of 10 at 40%: (100-400)/40 = -7.5, rounded away from zero -8:
		// 2 slots, 1 pod.
		{1, 1, 10, 40, 1},
		// Nothing occupied: (0-100*50)/50 = -100: 0 slots, 0 pods.
		{0, 10, 10, 50, 0},
		// No pods yet, 25 occupied at 50%: 2500/50 = 50 slots, 5 pods.
		{25, 0, 10, 50, 5},
	}
	for _, tc := range cases {
		if got := roomTarget(tc.occupied, tc.current, tc.capacity, tc.usage); got != tc.want {
			t.Errorf("roomTarget(%d, %d, %d, %d) = %d, want %d", tc.occupied, tc.current, tc.capacity, tc.usage, got, tc.want)
		}
	}
}

func TestResourceTarget(t *testing.T) {
	cases := []struct {
		used, requested int64
		current, usage  int32
		want            int32
	}{
		// 75% of requests at a 50% target on 4 pods: ceil(1.5*4) = 6.
		{1500, 2000, 4, 50, 6},
		// 50% at 70%: ceil(4*50/70) = ceil(2.857) = 3.
		{1000, 2000, 4, 70, 3},
		// Exactly on target: 4.
		{1400, 2000, 4, 70, 4},
		// Memory in milli-bytes past 2^63 when multiplied: exact.
		{6 << 50, 8 << 50, 60000, 50, 65536},
		// Nothing requested: the size stays.
		{100, 0, 3, 50, 3},
	}
	for _, tc := range cases {
		if got := resourceTarget(tc.used, tc.requested, tc.current, tc.usage); got != tc.want {
			t.Errorf("resourceTarget(%d, %d, %d, %d) = %d, want %d", tc.used, tc.requested, tc.current, tc.usage, got, tc.want)
		}
	}
}

// fakeUsage answers a fixed usage per resource; a missing one is unknown.
type fakeUsage map[corev1.ResourceName][2]int64

func (f fakeUsage) Usage(_ context.Context, r corev1.ResourceName) (int64, int64, bool) {
	u, ok := f[r]
	return u[0], u[1], ok
}

func dur(d time.Duration) config.Duration { return config.Duration{Duration: d} }

// step is one cycle: the usage of cpu (in milli-CPU of 2000m requested),
// the size and the fit, and the answer expected.
type step struct {
	at      time.Duration
	cpu     int64 // -1: unknown
	current int32
	fit     int32
	want    Recommendation
}

func runSteps(t *testing.T, triggers config.Triggers, steps []step) {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	usage := fakeUsage{}
	p := &TriggerPolicy{Usage: usage}
	cfg := config.DefaultAutoscalerConfig()
	cfg.Policy, cfg.Triggers = config.PolicyTriggers, &triggers
	for i, s := range steps {
		delete(usage, corev1.ResourceCPU)
		if s.cpu >= 0 {
			usage[corev1.ResourceCPU] = [2]int64{s.cpu, 2000}
		}
		obs := Observation{Now: t0.Add(s.at), Current: s.current, Capacity: 10, Fit: s.fit, Config: cfg}
		if diff := cmp.Diff(s.want, p.Recommend(context.Background(), obs)); diff != "" {
			t.Errorf("step %d (t=%v) (-want +got):\n%s", i, s.at, diff)
		}
	}
}

// TestTriggerPolicyUp checks an up trigger's window, threshold, cooldown
// and limit, point by point.
func TestTriggerPolicyUp(t *testing.T) {
	triggers := config.Triggers{Up: config.TriggerList{
		Triggers: []config.Trigger{{Type: config.TriggerCPU, Usage: 70, Threshold: 50, Time: dur(time.Minute), Limit: 95}},
		Cooldown: dur(2 * time.Minute),
	}}
	none := func(n int32) Recommendation { return Recommendation{Replicas: n, Reason: "no trigger matches"} }
	runSteps(t, triggers, []step{
		// 80%: above, but no whole window watched yet.
		{at: 0, cpu: 1600, current: 4, fit: 2, want: none(4)},
		{at: 30 * time.Second, cpu: 1600, current: 4, fit: 2, want: none(4)},
		// A minute watched: 3 of 3 points above 70%, more than 50%.
		// ceil(75/70 * 4) = ceil(4.29) = 5.
		{at: time.Minute, cpu: 1500, current: 4, fit: 2, want: Recommendation{Replicas: 5,
			Reason: "cpu trigger (usage 70%): 3 of 3 point(s) in 1m0s above it, more than 50%; 5 pod(s)"}},
		// Scaled to 5 at 70s: the cooldown (2m) holds the trigger though
		// 90% is above.
		{at: 70 * time.Second, cpu: 1800, current: 5, fit: 2, want: none(5)},
		// 96% reaches the limit: at once, cooldown or not. ceil(96/70*5)
		// = ceil(6.86) = 7.
		{at: 80 * time.Second, cpu: 1920, current: 5, fit: 2, want: Recommendation{Replicas: 7,
			Reason: "cpu at 96.0% reached the limit 95%; 7 pod(s)"}},
		// Usage unknown (no metrics API): no point now, and no trigger
		// acts on older ones, the limit's 96% at 80s included.
		{at: 100 * time.Second, cpu: -1, current: 7, fit: 2, want: none(7)},
		// Past the cooldown (220s), usage 50%: the window's points are
		// at 220s only (older ones dropped), none above.
		{at: 220 * time.Second, cpu: 1000, current: 7, fit: 2, want: none(7)},
		// The fit is the floor: no trigger, but 9 pods needed.
		{at: 230 * time.Second, cpu: 1000, current: 7, fit: 9, want: Recommendation{Replicas: 9,
			Reason: "no trigger matches; 9 pod(s) needed to fit every vreplica"}},
	})
}

// TestTriggerPolicyDown checks a down trigger's threshold ("more than")
// and that the fit bounds it.
func TestTriggerPolicyDown(t *testing.T) {
	triggers := config.Triggers{Down: config.TriggerList{
		Triggers: []config.Trigger{{Type: config.TriggerCPU, Usage: 30, Threshold: 50, Time: dur(time.Minute)}},
	}}
	none := func(n int32) Recommendation { return Recommendation{Replicas: n, Reason: "no trigger matches"} }
	runSteps(t, triggers, []step{
		{at: 0, cpu: 400, current: 6, fit: 2, want: none(6)},
		{at: 20 * time.Second, cpu: 400, current: 6, fit: 2, want: none(6)},
		{at: 40 * time.Second, cpu: 1000, current: 6, fit: 2, want: none(6)},
		// 4 points, 2 below 30% (20%, 20%; 50% and 50% are not): 2 of 4
		// is not more than 50%.
		{at: time.Minute, cpu: 1000, current: 6, fit: 2, want: none(6)},
		// The points at 0s and 20s... the window is [20s, 80s]: 20% at
		// 20s, 50% at 40s and 60s, 20% at 80s: 2 of 4 again.
		{at: 80 * time.Second, cpu: 400, current: 6, fit: 2, want: none(6)},
		// [40s, 100s]: 50%, 50%, 20%, 20%: 2 of 4 again.
		{at: 100 * time.Second, cpu: 400, current: 6, fit: 2, want: none(6)},
		// [50s, 110s]: 50%, 20%, 20%, 20%: 3 of 4, more than 50%.
		// ceil(20/30 * 6) = 4, but the fit needs 5: the down trigger
		// shrinks no further.
		{at: 110 * time.Second, cpu: 400, current: 6, fit: 5, want: Recommendation{Replicas: 5,
			Reason: "cpu trigger (usage 30%): 3 of 4 point(s) in 1m0s below it, more than 50%; 4 pod(s); 5 pod(s) needed to fit every vreplica"}},
		// [60s, 120s]: 4 of 5 below; the fit needs 2: 4 pods.
		{at: 120 * time.Second, cpu: 400, current: 6, fit: 2, want: Recommendation{Replicas: 4,
			Reason: "cpu trigger (usage 30%): 4 of 5 point(s) in 1m0s below it, more than 50%; 4 pod(s)"}},
		// Usage unknown: no point now, so no trigger acts on old ones.
		{at: 130 * time.Second, cpu: -1, current: 6, fit: 2, want: none(6)},
	})
}

// TestTriggerPolicyOrder checks that the first matching trigger wins, and
// a room trigger's arithmetic.
func TestTriggerPolicyOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	triggers := config.Triggers{Up: config.TriggerList{Triggers: []config.Trigger{
		{Type: config.TriggerMemory, Usage: 50, Threshold: 0}, // no usage reader answers memory
		{Type: config.TriggerRoom, Usage: 80, Threshold: 0},
		{Type: config.TriggerRoom, Usage: 50, Threshold: 0},
	}}}
	cfg := config.DefaultAutoscalerConfig()
	cfg.Policy, cfg.Triggers = config.PolicyTriggers, &triggers
	p := &TriggerPolicy{}
	// 85 of 100 slots: the first room trigger matches; round((8500 -
	// 8000)/80) = round(6.25) = 6 slots more, 106 slots, 11 pods.
	obs := Observation{Now: t0, Current: 10, Capacity: 10, Held: 85, Fit: 9, Config: cfg}
	want := Recommendation{Replicas: 11, Reason: "room trigger (usage 80%): 1 of 1 point(s) in 0s above it, more than 0%; 11 pod(s)"}
	if diff := cmp.Diff(want, p.Recommend(context.Background(), obs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

type countingPolicy struct{ n *atomic.Int32 }

func (p countingPolicy) Name() string { return "counting" }

func (p countingPolicy) Recommend(ctx context.Context, obs Observation) Recommendation {
	p.n.Add(1)
	return FitPolicy{}.Recommend(ctx, obs)
}

func TestAutoscalerTriggersDoNotResetScaleDownTimer(t *testing.T) {
	// stuck has 2 partitions and wants 30: 10 stay pending forever. Pods
	// 2..5 are idle. The pending source triggers the autoscaler over and
	// over; the window must still run out.
	e := newEnv(t, envOpts{replicas: 6, profiles: asProfiles(t, map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount"}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	}), config: func(c *config.AutoscalerConfig) { c.StabilizationWindow, c.ScaleDownCooldown = 5*time.Minute, 0 }})
	e.create("stuck", 30, 2)
	d := e.reconcile()
	since := d.ScaleDownSince
	if d.Action != ActionHold || since.IsZero() || d.Unplaceable != 10 {
		t.Fatalf("first cycle: %+v", d)
	}
	for i := 0; i < 10; i++ {
		e.step(30 * time.Second)
		e.schedule(e.key("stuck")) // still pending: triggers
		d = e.reconcile()
		if !d.ScaleDownSince.Equal(since) {
			t.Fatalf("cycle %d moved scale-down-since from %v to %v", i, since, d.ScaleDownSince)
		}
		if d.Written {
			break
		}
	}
	if !d.Written || d.Target != 2 {
		t.Fatalf("after the window: %+v", d)
	}
}
