package autoscaler

import (
	"testing"

	"github.com/vsched/vsched/config"
)

// Observation 1, the autoscaler's side: with a stabilization window of 0, the
// first cycle of a new leader whose source lister had not synced scaled a
// StatefulSet holding 10 committed vreplicas down to 0.
func TestAutoscalerHoldsWhileSourcesUnsynced(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 2, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) {
		c.StabilizationWindow = 0
		c.ScaleDownCooldown = 0
		c.MinReplicas = 0
	}})
	e.create("a", 10)
	e.src.SetSynced(false)
	e.use(e.addReplica(true, nil)) // a restart: a new scheduler and autoscaler
	d := e.reconcile()
	if d.Action != ActionHold || d.Written {
		t.Fatalf("decision while the sources have not synced = %+v, want a hold", d)
	}
	if got := e.specReplicas(); got != 2 {
		t.Fatalf("spec.replicas = %d, want 2", got)
	}
	e.src.SetSynced(true)
	if d := e.reconcile(); d.Target < 1 {
		t.Fatalf("after the sync: %+v, want at least 1 replica for a's 10", d)
	}
}
