package config_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/example"
)

// withOutOfTree returns the in-tree registry with the example out-of-tree
// plugin merged in, as an embedder would build it.
func withOutOfTree(t testing.TB) *framework.Registry {
	t.Helper()
	reg, err := plugins.NewInTreeRegistry()
	if err != nil {
		t.Fatal(err)
	}
	ext, err := example.Registry()
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Merge(ext); err != nil {
		t.Fatal(err)
	}
	return reg
}

// An out-of-tree plugin, configured by name in a ConfigMap, changes the exact
// placements.
func TestOutOfTreePlugin(t *testing.T) {
	reg := withOutOfTree(t)
	// One node, four pods of capacity 3.
	cluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(3).Node("n0", "zone-a").Pods("n0", "n0", "n0", "n0")
	}
	on := func(ord, n int32) vsched.Placement {
		p := frameworktest.P(ord, n)
		p.NodeName, p.ZoneName = "n0", "zone-a"
		return p
	}
	// AvoidPods on pods 0 and 1 over the lowest-ordinal tie-break.
	const avoid01 = `[{"Name": "AvoidPods", "Weight": 10, "Args": {"Ordinals": [0, 1]}},
		              {"Name": "LowestOrdinalPriority", "Weight": 1}]`
	tests := []struct {
		name       string
		priorities string
		vreplicas  int32
		want       []vsched.Placement
	}{{
		name:       "without the plugin: packed onto the lowest ordinals",
		priorities: `[{"Name": "LowestOrdinalPriority"}]`,
		vreplicas:  5,
		want:       []vsched.Placement{on(0, 3), on(1, 2)},
	}, {
		name:       "AvoidPods steers away from pods 0 and 1",
		priorities: avoid01,
		vreplicas:  5,
		want:       []vsched.Placement{on(2, 3), on(3, 2)},
	}, {
		name: "Args as a string, as the seed writes them",
		priorities: `[{"Name": "AvoidPods", "Weight": 10, "Args": "{\"Ordinals\": [1]}"},
		              {"Name": "LowestOrdinalPriority", "Weight": 1}]`,
		vreplicas: 5,
		want:      []vsched.Placement{on(0, 3), on(2, 2)},
	}, {
		name:       "a preference only: avoided pods are used once the others are full",
		priorities: avoid01,
		vreplicas:  8,
		want:       []vsched.Placement{on(0, 2), on(2, 3), on(3, 3)},
	}, {
		name: "weight 0 switches it off",
		priorities: `[{"Name": "AvoidPods", "Weight": 0, "Args": {"Ordinals": [0, 1]}},
		              {"Name": "LowestOrdinalPriority", "Weight": 1}]`,
		vreplicas: 5,
		want:      []vsched.Placement{on(0, 3), on(1, 2)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sched, err := config.ParsePlaceConfigMap(namedConfigMap("config-scheduler", map[string]string{
				"predicates": `[{"Name": "PodFitsResources"}]`,
				"priorities": tc.priorities,
			}), inTree)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := config.BuildProfiles(context.Background(), reg, sched, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, explain := range []bool{false, true} {
				d, err := framework.NewDecision(framework.Place, cluster(), frameworktest.NewVPod("ns", "src", tc.vreplicas), nil)
				if err != nil {
					t.Fatal(err)
				}
				var ex *framework.Explanation
				if explain {
					ex = &framework.Explanation{}
				}
				res, err := ps.Place.Run(context.Background(), d, tc.vreplicas, ex)
				if err != nil {
					t.Fatal(err)
				}
				if res.Changed != tc.vreplicas {
					t.Errorf("placed %d of %d: %s", res.Changed, tc.vreplicas, res.Reason)
				}
				if diff := cmp.Diff(tc.want, d.Placements()); diff != "" {
					t.Errorf("explain=%v: placements (-want +got):\n%s", explain, diff)
				}
			}
		})
	}
}

func TestOutOfTreePluginArgsErrors(t *testing.T) {
	reg := withOutOfTree(t)
	tests := []struct {
		name string
		args string
		want []wantProblem
	}{{
		name: "no ordinals",
		args: `{}`,
		want: []wantProblem{{field: "data.priorities[0].Args.Ordinals", typ: field.ErrorTypeRequired}},
	}, {
		name: "negative and repeated ordinals",
		args: `{"Ordinals": [2, -1, 2]}`,
		want: []wantProblem{
			{field: "data.priorities[0].Args.Ordinals[1]", typ: field.ErrorTypeInvalid, contains: []string{"Invalid value: -1: must be >= 0"}},
			{field: "data.priorities[0].Args.Ordinals[2]", typ: field.ErrorTypeDuplicate, contains: []string{"Duplicate value: 2"}},
		},
	}, {
		name: "unknown field",
		args: `{"Ordinal": [1]}`,
		want: []wantProblem{{field: "data.priorities[0].Args", typ: field.ErrorTypeInvalid, contains: []string{`unknown field "Ordinal"`}}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sched, err := config.ParsePlaceConfigMapFromData(map[string]string{
				"priorities": `[{"Name": "AvoidPods", "Args": ` + tc.args + `}]`,
			}, inTree)
			if err != nil {
				t.Fatal(err)
			}
			checkProblems(t, config.ValidatePlaceConfig(sched, reg), tc.want)
		})
	}
	// The in-tree registry alone does not know the plugin.
	sched, _ := config.ParsePlaceConfigMapFromData(map[string]string{"priorities": `[{"Name": "AvoidPods", "Args": {"Ordinals": [0]}}]`}, inTree)
	checkProblems(t, config.ValidatePlaceConfig(sched, inTree), []wantProblem{{
		field: "data.priorities[0].Name", typ: field.ErrorTypeNotSupported, contains: []string{`Unsupported value: "AvoidPods"`}}})
}

// Merging a registry that repeats a name is an error, and adds nothing.
func TestMergeDuplicateName(t *testing.T) {
	tests := []struct {
		name  string
		other func() (*framework.Registry, error)
		want  string
	}{{
		name:  "the same out-of-tree plugin twice",
		other: example.Registry,
		want:  `plugin "AvoidPods" is already registered`,
	}, {
		name: "an out-of-tree plugin named like an in-tree one",
		other: func() (*framework.Registry, error) {
			spec := example.Spec
			spec.Name = podfitsresources.Name
			return framework.NewRegistry(spec.Registration())
		},
		want: `plugin "PodFitsResources" is already registered`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := withOutOfTree(t)
			before := len(reg.Registrations())
			other, err := tc.other()
			if err != nil {
				t.Fatal(err)
			}
			err = reg.Merge(other)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Merge error = %v, want %q", err, tc.want)
			}
			if after := len(reg.Registrations()); after != before {
				t.Errorf("a failed Merge added plugins: %d -> %d", before, after)
			}
		})
	}
}
