package framework_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
)

// HeadroomArgs configures Headroom. The field is a pointer because 0 is a
// meaningful setting ("fill pods up") that must not be mistaken for "not
// set" (a default of 1).
type HeadroomArgs struct {
	Headroom *int32 `json:"Headroom,omitempty"`
}

// Headroom is a filter that keeps some capacity free on every pod.
type Headroom struct{ keep int32 }

func (*Headroom) Name() string { return "Headroom" }

// Filter rejects a pod that one more vreplica would leave with less than
// the headroom free.
func (h *Headroom) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if d.Free(ordinal)-1 < h.keep {
		return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("would leave less than %d free", h.keep))
	}
	return nil
}

// HeadroomSpec describes the plugin: its kinds, where it may be
// configured, and how its args are defaulted, validated and built.
var HeadroomSpec = framework.Spec[HeadroomArgs]{
	Name:  "Headroom",
	Kinds: framework.KindFilter,
	Modes: framework.ForPlace,
	Type:  (*Headroom)(nil),
	Defaults: func(a *HeadroomArgs) {
		if a.Headroom == nil {
			one := int32(1)
			a.Headroom = &one
		}
	},
	Validate: func(a *HeadroomArgs, path *field.Path) field.ErrorList {
		if *a.Headroom < 0 {
			return field.ErrorList{field.Invalid(path.Child("Headroom"), *a.Headroom, "must not be negative")}
		}
		return nil
	},
	New: func(_ context.Context, a *HeadroomArgs) (framework.Plugin, error) {
		return &Headroom{keep: *a.Headroom}, nil
	},
}

// ExampleSpec writes a filter plugin, registers it beside the in-tree
// plugins, and configures it as a ConfigMap would.
func ExampleSpec() {
	reg := plugins.MustInTreeRegistry()
	if err := reg.Register(HeadroomSpec.Registration()); err != nil {
		panic(err)
	}
	// Two pods of capacity 3 and a source wanting 5 vreplicas.
	cluster := ft.NewCluster(3).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1")
	for _, args := range []string{``, `{"Headroom": 0}`, `{"headroom": 0}`} {
		profile, errs := framework.BuildProfile(context.Background(), reg, framework.ProfileConfig{
			Mode:    framework.Place,
			Filters: []framework.PluginConfig{{Name: "PodFitsResources"}, {Name: "Headroom", Args: []byte(args)}},
		}, field.NewPath("predicates"), field.NewPath("priorities"))
		if len(errs) > 0 {
			fmt.Printf("%-16s %v\n", args, errs.ToAggregate())
			continue
		}
		d, err := framework.NewDecision(framework.Place, cluster, ft.NewVPod("ns", "src", 5), nil)
		if err != nil {
			panic(err)
		}
		res, err := profile.Run(context.Background(), d, 5, nil)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-16s placed %d of 5\n", args, res.Changed)
	}
	// Output:
	//                  placed 4 of 5
	// {"Headroom": 0}  placed 5 of 5
	// {"headroom": 0}  predicates[1].Args: Invalid value: "{\"headroom\": 0}": json: unknown field "headroom" (did you mean "Headroom"?)
}
