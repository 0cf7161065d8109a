package framework_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
)

// A registry's default policy is its own copy: the caller's lists, a
// clone's and a merge leave it as it was set.
func TestRegistryDefaults(t *testing.T) {
	w, three := int32(3), int32(3)
	set := framework.Defaults{
		Filters:        []framework.PluginConfig{{Name: "Fits"}},
		Scores:         []framework.PluginConfig{{Name: "Spread", Weight: &w, Args: []byte(`{"MaxSkew":1}`)}},
		RemoveScores:   []framework.PluginConfig{},
		CapacityFilter: "Fits",
	}
	want := framework.Defaults{
		Filters:        []framework.PluginConfig{{Name: "Fits"}},
		Scores:         []framework.PluginConfig{{Name: "Spread", Weight: &three, Args: []byte(`{"MaxSkew":1}`)}},
		RemoveScores:   []framework.PluginConfig{},
		CapacityFilter: "Fits",
	}
	var nilReg *framework.Registry
	if d := cmp.Diff(framework.Defaults{}, nilReg.Defaults()); d != "" {
		t.Errorf("nil registry's defaults (-want +got):\n%s", d)
	}
	reg, err := framework.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(framework.Defaults{}, reg.Defaults()); d != "" {
		t.Errorf("new registry's defaults (-want +got):\n%s", d)
	}
	reg.SetDefaults(set)
	w = 9
	set.Scores[0].Args[1] = 'x'
	set.Filters[0].Name = "Other"
	got := reg.Defaults()
	got.Scores[0].Name = "Changed by the caller"
	clone := reg.Clone()
	other, err := framework.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	other.SetDefaults(framework.Defaults{CapacityFilter: "Theirs"})
	if err := reg.Merge(other); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*framework.Registry{"registry": reg, "clone": clone} {
		if d := cmp.Diff(want, r.Defaults()); d != "" {
			t.Errorf("%s's defaults (-want +got):\n%s", name, d)
		}
	}
}
