package autoscaler

import (
	"context"
	"testing"
	"time"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
)

// minSpread is a filter that makes a source span at least n pods before a
// pod takes a second vreplica of it, as a minimum-replicas spread does.
type minSpread struct{ n int }

func (minSpread) Name() string { return "MinSpread" }

func (p minSpread) Filter(_ context.Context, d *framework.Decision, ord int32) *framework.Status {
	if d.OnPod(ord) > 0 && d.PodsHeld() < p.n {
		return framework.NewStatus(framework.Unschedulable, "the source must span more pods first")
	}
	return nil
}

func TestAutoscalerCountsMinimumSpreadPlacements(t *testing.T) {
	place, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{podfitsresources.New(), minSpread{n: 4}},
		[]framework.WeightedScore{{Plugin: lowestordinalpriority.New(), Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	def, err := config.ProfilesFromConfigMaps(context.Background(), inTree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps := config.Profiles{Place: place, Remove: def().Remove}
	e := newEnv(t, envOpts{replicas: 2, profiles: func() config.Profiles { return ps }})
	// 4 vreplicas would fit one pod of 10, but the profile spreads them
	// over 4 pods: the autoscaler must ask for 4, not 1.
	e.create("a", 4)
	if p := e.pending(); p != 2 {
		t.Fatalf("pending = %d", p)
	}
	d := e.reconcile()
	if d.Target != 4 {
		t.Fatalf("decision = %+v, want 4", d)
	}
	e.settle()
	e.work()
	if p := e.pending(); p != 0 {
		t.Fatalf("pending after the scale-up = %d", p)
	}
}

func TestAutoscalerScalesToZero(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, config: func(c *config.AutoscalerConfig) { c.StabilizationWindow, c.ScaleDownCooldown = time.Minute, 0 }})
	e.create("a", 5)
	if err := e.src.Delete(e.key("a")); err != nil {
		t.Fatal(err)
	}
	e.s.Forget(e.key("a"))
	e.reconcile()
	e.step(time.Minute)
	if d := e.reconcile(); !d.Written || d.Target != 0 {
		t.Fatalf("decision = %+v, want 0", d)
	}
	e.settle()
	// From zero, a new source brings the StatefulSet back, one pod per
	// zone.
	e.create("b", 5)
	if d := e.reconcile(); !d.Written || d.Target != 3 || d.Fit != 1 {
		t.Fatalf("from zero: %+v", d)
	}
	e.settle()
	e.work()
	if p := e.pending(); p != 0 {
		t.Fatalf("pending = %d", p)
	}
	if err := e.src.Delete(e.key("b")); err != nil {
		t.Fatal(err)
	}
	e.s.Forget(e.key("b"))
	// With min replicas 1 (and zone spread), 3 pods stay.
	e.setConfig(func(c *config.AutoscalerConfig) { c.MinReplicas = 1 })
	if d := e.reconcile(); d.Target != 3 {
		t.Fatalf("decision = %+v, want 3 (min 1 rounded to the zones)", d)
	}
}

func TestAutoscalerNeverExceedsWhatTheProfileCanUse(t *testing.T) {
	// 50 vreplicas with 3 partitions on pods of 10: 3 pods hold 30, and
	// no number of pods places the other 20.
	e := newEnv(t, envOpts{replicas: 1, profiles: asProfiles(t, map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount"}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`,
	})})
	e.create("p", 50, 3)
	d := e.reconcile()
	if d.Target != 3 || d.Unplaceable != 20 {
		t.Fatalf("decision = %+v, want 3 pods and 20 unplaceable", d)
	}
	e.settle()
	e.work()
	if d = e.reconcile(); d.Written || d.Action != ActionNone || d.Pending != 20 {
		t.Fatalf("at 3 pods: %+v", d)
	}
}
