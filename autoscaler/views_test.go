package autoscaler

import (
	"errors"
	"testing"

	"k8s.io/client-go/informers"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/statefulset"
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

func TestAutoscalerHoldsWhenBlind(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t)})
	e.create("a", 35)
	e.src.FailList(errors.New("lister down"))
	d := e.reconcile()
	if d.Action != ActionHold || d.Written || e.specReplicas() != 1 {
		t.Fatalf("lister failing: %+v", d)
	}
	e.src.FailList(nil)

	// A scheduler whose informers never synced.
	factory := informers.NewSharedInformerFactoryWithOptions(e.c.Client(), 0, informers.WithNamespace(e.c.Namespace()))
	s, err := statefulset.New(e.ctx, statefulset.Config{Namespace: e.c.Namespace(), Name: e.c.StatefulSetName(), Capacity: 10, Lister: e.src.List, ListerSynced: e.src.HasSynced,
		Informers: statefulset.InformersFromFactory(factory), Profiles: packProfiles(t), AlwaysLeader: true})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(e.ctx, Options{Scheduler: s, Client: e.c.Client(), Cache: CacheFromFactory(factory)})
	if err != nil {
		t.Fatal(err)
	}
	d, err = a.Reconcile(e.ctx)
	if err != nil || d.Action != ActionHold || d.Written {
		t.Fatalf("informers not synced: %+v, %v", d, err)
	}
	if n := e.scaleUpdates(); n != 0 {
		t.Fatalf("%d scale updates while blind", n)
	}
}
