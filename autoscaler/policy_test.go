package autoscaler

import (
	"context"
	"testing"

	"github.com/vsched/vsched/config"
)

func TestAutoscalerUtilizationPolicy(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.Policy = config.PolicyUtilization
		c.UtilizationUpper, c.UtilizationLower = 0.8, 0.5
		c.StabilizationWindow, c.ScaleDownCooldown = 0, 0
	}})
	e.create("a", 17) // 0.85 of 20: above the upper threshold
	d := e.reconcile()
	if d.Policy != config.PolicyUtilization || d.Target != 3 {
		t.Fatalf("decision = %+v, want 3 (17/(10*0.65) rounded up)", d)
	}
	e.settle()
	e.update("a", 14) // 0.47 of 30: below the lower threshold
	if d = e.reconcile(); d.Target != 3 && d.Desired != 3 {
		t.Fatalf("decision = %+v", d)
	}
	e.update("a", 20) // 0.67: within the band, nothing changes
	if d = e.reconcile(); d.Desired != 3 || d.Action != ActionNone {
		t.Fatalf("decision = %+v, want to hold 3", d)
	}
}

func TestUtilizationPolicyHysteresis(t *testing.T) {
	p := UtilizationPolicy{}
	cfg := config.DefaultAutoscalerConfig()
	obs := func(current int32, held int64) Observation {
		return Observation{Current: current, Capacity: 10, Held: held, Config: cfg}
	}
	for _, c := range []struct {
		current int32
		held    int64
		want    int32
	}{
		{10, 85, 14}, // 0.85 > 0.8: to 0.65
		{10, 80, 10}, // at the upper threshold: hold
		{10, 50, 10}, // at the lower threshold: hold
		{10, 45, 7},  // 0.45 < 0.5: to 0.65
		{0, 0, 0},
		{0, 5, 1},
	} {
		if r := p.Recommend(context.Background(), obs(c.current, c.held)); r.Replicas != c.want {
			t.Errorf("current %d held %d: %+v, want %d", c.current, c.held, r, c.want)
		}
	}
	// Never below the fit.
	o := obs(10, 45)
	o.Fit = 9
	if r := p.Recommend(context.Background(), o); r.Replicas != 9 {
		t.Errorf("fit floor: %+v", r)
	}
}
