package framework_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// TestWithFilter: the added filter (rejecting pods 0 and 2) runs for a
// source with a cost and one without, pod by pod, and the profile it was
// added to is unchanged.
func TestWithFilter(t *testing.T) {
	base, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	base, err = base.WithCosts(&ft.RejectFilter{PluginName: "CostFilter"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	added, err := base.WithFilter(&ft.RejectFilter{Ordinals: []int32{0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := base.WithFilter(nil); err == nil {
		t.Error("a nil filter added without an error")
	}
	c := ft.WithResources(fourPods(), ft.Resources("memory", "1Gi"))
	costed := ft.NewVPod("ns", "costed", 2)
	c.Cost(costed.Key, ft.Resources("memory", "100Mi"))
	type row struct {
		Filters, CostedFilters []string
		Grouped                bool
		Plain, Costed          []vsched.Placement
	}
	place := func(p *framework.Profile, v *ft.VPod) []vsched.Placement {
		d, err := framework.NewDecision(framework.Place, c, v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Run(context.Background(), d, 2, nil); err != nil {
			t.Fatal(err)
		}
		return d.Placements()
	}
	got := map[string]row{}
	for name, p := range map[string]*framework.Profile{"base": base, "added": added} {
		got[name] = row{Filters: p.FilterNames(), CostedFilters: p.Costed().FilterNames(), Grouped: p.Grouped(),
			Plain: place(p, ft.NewVPod("ns", "plain", 2)), Costed: place(p, costed)}
	}
	// No score: ties go to the lowest ordinal that passes.
	on0 := vsched.Placement{PodName: "adapter-0", ZoneName: "a", NodeName: "n0", VReplicas: 2}
	on1 := vsched.Placement{PodName: "adapter-1", ZoneName: "b", NodeName: "n1", VReplicas: 2}
	want := map[string]row{
		"base": {Filters: []string{ft.CapacityName}, CostedFilters: []string{ft.CapacityName, "CostFilter"}, Grouped: true,
			Plain: []vsched.Placement{on0}, Costed: []vsched.Placement{on0}},
		"added": {Filters: []string{ft.CapacityName, ft.RejectName}, CostedFilters: []string{ft.CapacityName, "CostFilter", ft.RejectName},
			Plain: []vsched.Placement{on1}, Costed: []vsched.Placement{on1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
