package plugins_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
)

// PreferZoneArgs configures the out-of-tree PreferZone plugin.
type PreferZoneArgs struct {
	Zone string `json:"Zone"`
}

// PreferZone scores pods in one zone MaxScore and the rest 0.
type PreferZone struct{ zone string }

func (*PreferZone) Name() string { return "PreferZone" }

// EquivalentWithinClass holds: pods of a class share a node, hence a zone.
func (*PreferZone) EquivalentWithinClass() bool { return true }

func (p *PreferZone) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	if info, ok := d.Cluster().Pod(ordinal); ok && info.Zone == p.zone {
		return framework.MaxScore, nil
	}
	return framework.MinScore, nil
}

var PreferZoneSpec = framework.Spec[PreferZoneArgs]{
	Name:  "PreferZone",
	Kinds: framework.KindScore,
	Modes: framework.ForPlace,
	Validate: func(a *PreferZoneArgs, path *field.Path) field.ErrorList {
		if a.Zone == "" {
			return field.ErrorList{field.Required(path.Child("Zone"), "name the preferred zone")}
		}
		return nil
	},
	New: func(_ context.Context, a *PreferZoneArgs) (framework.Plugin, error) {
		return &PreferZone{zone: a.Zone}, nil
	},
}

// An out-of-tree plugin is described by a Spec, registered next to the
// in-tree plugins, and configured like any of them.
func Example_outOfTreePlugin() {
	ctx := context.Background()
	reg := plugins.MustInTreeRegistry()
	ours, err := framework.NewRegistry(PreferZoneSpec.Registration())
	if err != nil {
		panic(err)
	}
	if err := reg.Merge(ours); err != nil {
		panic(err)
	}

	w := int32(5)
	profile, errs := framework.BuildProfile(ctx, reg, framework.ProfileConfig{
		Mode:    framework.Place,
		Filters: []framework.PluginConfig{{Name: "PodFitsResources"}},
		Scores: []framework.PluginConfig{
			{Name: "PreferZone", Weight: &w, Args: []byte(`{"Zone": "zb"}`)},
			{Name: "LowestOrdinalPriority"},
		},
	}, field.NewPath("predicates"), field.NewPath("priorities"))
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}

	c := frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0", "n1")
	d, err := framework.NewDecision(framework.Place, c, frameworktest.NewVPod("ns", "src", 5), nil)
	if err != nil {
		panic(err)
	}
	if _, err := profile.Run(ctx, d, 5, nil); err != nil {
		panic(err)
	}
	for _, p := range d.Placements() {
		fmt.Printf("%s (%s): %d\n", p.PodName, p.ZoneName, p.VReplicas)
	}

	// A misconfigured out-of-tree plugin is reported like an in-tree one.
	_, errs = framework.BuildProfile(ctx, reg, framework.ProfileConfig{
		Mode:    framework.Place,
		Filters: []framework.PluginConfig{{Name: "PodFitsResources"}},
		Scores:  []framework.PluginConfig{{Name: "PreferZone", Args: []byte(`{}`)}},
	}, field.NewPath("predicates"), field.NewPath("priorities"))
	fmt.Println(errs.ToAggregate())

	// Output:
	// adapter-0 (za): 1
	// adapter-1 (zb): 2
	// adapter-3 (zb): 2
	// priorities[0].Args.Zone: Required value: name the preferred zone
}
