package plugins

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

func TestInTreeRegistryNames(t *testing.T) {
	r := MustInTreeRegistry()
	cases := []struct {
		kind framework.Kind
		mode framework.Mode
		want []string
	}{
		{framework.KindFilter, framework.Place, []string{"EvenPodSpread", "EvenZoneSpread", "NoMaxResourceCount", "PodFitsResources"}},
		{framework.KindScore, framework.Place, []string{"AvailabilityNodePriority", "AvailabilityZonePriority", "BalancedZonePriority", "EvenPodSpread", "InUsePodPriority", "LowestOrdinalPriority"}},
		{framework.KindFilter, framework.Remove, nil},
		{framework.KindScore, framework.Remove, []string{
			"RemoveWithAvailabilityNodePriority", "RemoveWithAvailabilityZonePriority",
			"RemoveWithEvenPodSpreadPriority", "RemoveWithHighestOrdinalPriority",
		}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, r.Names(tc.kind, tc.mode)); diff != "" {
			t.Errorf("Names(%d, %v) (-want +got):\n%s", tc.kind, tc.mode, diff)
		}
	}
	if got := len(r.Registrations()); got != 13 {
		t.Errorf("%d registrations, want 13", got)
	}
}

// TestInTreeRegistrations builds every plugin with default args and checks
// that it is what it is registered as, that its aliases lead to it, and that
// scheduler plugins let the runtime evaluate one pod per class.
func TestInTreeRegistrations(t *testing.T) {
	r := MustInTreeRegistry()
	for _, reg := range InTreeRegistrations() {
		t.Run(reg.Name, func(t *testing.T) {
			for _, alias := range reg.Aliases {
				if got, ok := r.Lookup(alias); !ok || got.Name != reg.Name {
					t.Errorf("alias %q resolves to %q (%v)", alias, got.Name, ok)
				}
			}
			args, errs := reg.DecodeArgs(nil, field.NewPath("Args"))
			if len(errs) > 0 {
				t.Fatalf("default args: %v", errs)
			}
			pl, err := reg.New(context.Background(), args)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if pl.Name() != reg.Name {
				t.Errorf("plugin calls itself %q", pl.Name())
			}
			if _, ok := pl.(framework.FilterPlugin); ok != (reg.Kinds&framework.KindFilter != 0) {
				t.Errorf("implements FilterPlugin: %v, registered kinds %d", ok, reg.Kinds)
			}
			if _, ok := pl.(framework.ScorePlugin); ok != (reg.Kinds&framework.KindScore != 0) {
				t.Errorf("implements ScorePlugin: %v, registered kinds %d", ok, reg.Kinds)
			}
			if reg.Modes.Has(framework.Place) {
				if e, ok := pl.(framework.EquivalenceAware); !ok || !e.EquivalentWithinClass() {
					t.Errorf("scheduler plugin does not promise equivalence within a class")
				}
			}
		})
	}
}

func TestMustPanics(t *testing.T) {
	defer func() {
		if got, want := recover(), "plugins: in-tree registry: boom"; got != want {
			t.Errorf("panic %v, want %q", got, want)
		}
	}()
	must(nil, errors.New("boom"))
}

func TestNewInTreeRegistryIsIndependent(t *testing.T) {
	a, err := NewInTreeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	b := MustInTreeRegistry()
	extra := framework.Spec[framework.NoArgs]{
		Name: "Extra", Kinds: framework.KindScore, Modes: framework.ForPlace,
		New: func(context.Context, *framework.NoArgs) (framework.Plugin, error) { return nil, nil },
	}
	if err := a.Register(extra.Registration()); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Lookup("Extra"); ok {
		t.Error("registering in one in-tree registry changed another")
	}
	if err := a.Merge(b); err == nil {
		t.Error("merging the in-tree plugins twice did not fail")
	}
}

// TestDesignExampleProfiles builds the design's example config-scheduler
// and config-descheduler profiles against the in-tree registry and runs the
// scheduler one.
func TestDesignExampleProfiles(t *testing.T) {
	ctx := context.Background()
	r := MustInTreeRegistry()
	w := func(n int32) *int32 { return &n }
	sched, errs := framework.BuildProfile(ctx, r, framework.ProfileConfig{
		Mode: framework.Place,
		Filters: []framework.PluginConfig{
			{Name: "PodFitsResources"},
			{Name: "NoMaxResourceCount", Args: []byte(`{"NumPartitions": 100}`)},
			{Name: "EvenPodSpread", Args: []byte(`{"MaxSkew": 2}`)},
		},
		Scores: []framework.PluginConfig{
			{Name: "AvailabilityZonePriority", Weight: w(10), Args: []byte(`{"MaxSkew": 2}`)},
			{Name: "LowestOrdinalPriority", Weight: w(2)},
		},
	}, field.NewPath("predicates"), field.NewPath("priorities"))
	if len(errs) > 0 {
		t.Fatalf("config-scheduler: %v", errs)
	}
	if !sched.Grouped() {
		t.Error("config-scheduler profile is not evaluated by class")
	}
	_, errs = framework.BuildProfile(ctx, r, framework.ProfileConfig{
		Mode: framework.Remove,
		Scores: []framework.PluginConfig{
			{Name: "RemoveWithEvenPodSpreadPriority", Weight: w(10), Args: []byte(`{"MaxSkew": 2}`)},
			{Name: "RemoveWithAvailabilityZonePriority", Weight: w(10), Args: []byte(`{"MaxSkew": 2}`)},
			{Name: "RemoveWithHighestOrdinalPriority", Weight: w(2)},
		},
	}, field.NewPath("predicates"), field.NewPath("priorities"))
	if len(errs) > 0 {
		t.Fatalf("config-descheduler: %v", errs)
	}

	// Two zones, two nodes each, one pod per node (ordinals 0-3 on n0-n3),
	// capacity 3.
	c := frameworktest.NewCluster(3).
		Node("n0", "za").Node("n1", "zb").Node("n2", "za").Node("n3", "zb").
		Pods("n0", "n1", "n2", "n3")
	vp := frameworktest.NewVPod("ns", "src", 6)
	d, err := framework.NewDecision(framework.Place, c, vp, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sched.Run(ctx, d, 6, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Zone priority (x10) alternates zones; within a zone the lowest
	// ordinal (x2) wins while EvenPodSpread (MaxSkew 2) allows it:
	// za: 0, zb: 1, za: 0, zb: 1, za: 0 is at 2 with pods 2 and 3 at 0
	// (skew 3 > 2), so 2; zb: 1 likewise, so 3.
	want := []vsched.Placement{
		{PodName: "adapter-0", NodeName: "n0", ZoneName: "za", VReplicas: 2},
		{PodName: "adapter-1", NodeName: "n1", ZoneName: "zb", VReplicas: 2},
		{PodName: "adapter-2", NodeName: "n2", ZoneName: "za", VReplicas: 1},
		{PodName: "adapter-3", NodeName: "n3", ZoneName: "zb", VReplicas: 1},
	}
	// Plugins are shared: the same profile runs many decisions at once
	// (go test -race checks they keep no per-call state).
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vp := frameworktest.NewVPod("ns", fmt.Sprintf("src-%d", i), 6)
			d, err := framework.NewDecision(framework.Place, c, vp, nil)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := sched.Run(ctx, d, 6, nil); err != nil {
				t.Error(err)
				return
			}
			if diff := cmp.Diff(want, d.Placements()); diff != "" {
				t.Errorf("concurrent decision %d (-want +got):\n%s", i, diff)
			}
		}()
	}
	wg.Wait()
	if res.Changed != 6 {
		t.Errorf("placed %d, want 6 (%s)", res.Changed, res.Reason)
	}
	if diff := cmp.Diff(want, d.Placements()); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
}
