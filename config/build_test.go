package config_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
)

// Problems found against the registry: each parses, and BuildProfiles and
// the Validate functions report it at its exact path.
func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name    string
		sched   map[string]string // nil: default
		desched map[string]string // nil: default
		want    []wantProblem
	}{{
		name:  "unknown plugin lists the plugins allowed there",
		sched: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority"}, {"Name": "AvailabilityZonePriorty", "Weight": 2}]`},
		want: []wantProblem{{field: "data.priorities[1].Name", typ: field.ErrorTypeNotSupported, contains: []string{
			`Unsupported value: "AvailabilityZonePriorty": supported values: "AvailabilityNodePriority", "AvailabilityZonePriority", "BalancedZonePriority", "EvenPodSpread", "InUsePodPriority", "LowestOrdinalPriority"`}}},
	}, {
		name:  "unknown predicate",
		sched: map[string]string{"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCounts"}]`},
		want: []wantProblem{{field: "data.predicates[1].Name", typ: field.ErrorTypeNotSupported, contains: []string{
			`"NoMaxResourceCounts": supported values: `, `"NoMaxResourceCount"`, `"PodFitsResources"`}}},
	}, {
		name:  "weight above 10",
		sched: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 11}]`},
		want: []wantProblem{{field: "data.priorities[0].Weight", typ: field.ErrorTypeInvalid, contains: []string{
			`Invalid value: 11: must be between 0 and 10`}}},
	}, {
		name:  "negative weight",
		sched: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": -1}]`},
		want: []wantProblem{{field: "data.priorities[0].Weight", typ: field.ErrorTypeInvalid, contains: []string{
			`Invalid value: -1: must be between 0 and 10`}}},
	}, {
		name:  "weight on a predicate",
		sched: map[string]string{"predicates": `[{"Name": "PodFitsResources", "Weight": 1}]`},
		want: []wantProblem{{field: "data.predicates[0].Weight", typ: field.ErrorTypeForbidden, contains: []string{
			`filters (predicates) take no weight`}}},
	}, {
		name: "MaxSkew below 1",
		sched: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 2},
			{"Name": "AvailabilityZonePriority", "Weight": 10, "Args": "{\"MaxSkew\": 0}"}]`},
		want: []wantProblem{{field: "data.priorities[1].Args.MaxSkew", typ: field.ErrorTypeInvalid, contains: []string{
			`config-scheduler: data.priorities[1].Args.MaxSkew: Invalid value: 0: must be at least 1`}}},
	}, {
		name:  "NumPartitions below 1",
		sched: map[string]string{"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount", "Args": {"NumPartitions": 0}}]`},
		want: []wantProblem{{field: "data.predicates[1].Args.NumPartitions", typ: field.ErrorTypeInvalid, contains: []string{
			`Invalid value: 0: must be at least 1`}}},
	}, {
		name:  "duplicate plugin",
		sched: map[string]string{"priorities": `[{"Name": "EvenPodSpread"}, {"Name": "LowestOrdinalPriority"}, {"Name": "EvenPodSpread", "Weight": 3}]`},
		want: []wantProblem{{field: "data.priorities[2].Name", typ: field.ErrorTypeDuplicate, contains: []string{
			`Duplicate value: "EvenPodSpread (also at index 0)"`}}},
	}, {
		name:  "malformed Args string, with its position",
		sched: map[string]string{"priorities": `[{"Name": "EvenPodSpread", "Args": "{\"MaxSkew\" 2}"}]`},
		want: []wantProblem{{field: "data.priorities[0].Args", typ: field.ErrorTypeInvalid, contains: []string{
			`Invalid value: "{\"MaxSkew\" 2}": malformed JSON at line 1, column 12`, `invalid character '2' after object key`}}},
	}, {
		name:  "malformed multi-line Args string",
		sched: map[string]string{"priorities": `[{"Name": "EvenPodSpread", "Args": "{\n \"MaxSkew\": 2,\n}"}]`},
		want: []wantProblem{{field: "data.priorities[0].Args", typ: field.ErrorTypeInvalid, contains: []string{
			`malformed JSON at line 3, column 1:`, `invalid character '}' looking for beginning of object key string`}}},
	}, {
		name:  "unknown Args field",
		sched: map[string]string{"priorities": `[{"Name": "AvailabilityNodePriority", "Args": {"MaxSkw": 2}}]`},
		want:  []wantProblem{{field: "data.priorities[0].Args", typ: field.ErrorTypeInvalid, contains: []string{`unknown field "MaxSkw"`}}},
	}, {
		name:  "Args of the wrong type",
		sched: map[string]string{"priorities": `[{"Name": "AvailabilityNodePriority", "Args": {"MaxSkew": "2"}}]`},
		want:  []wantProblem{{field: "data.priorities[0].Args", typ: field.ErrorTypeInvalid, contains: []string{`MaxSkew`, `cannot use JSON string`}}},
	}, {
		name:  "Args for a plugin without args",
		sched: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority", "Args": {"Reverse": true}}]`},
		want: []wantProblem{{field: "data.priorities[0].Args", typ: field.ErrorTypeForbidden, contains: []string{
			`plugin LowestOrdinalPriority takes no args`}}},
	}, {
		name:  "a priority listed as a predicate",
		sched: map[string]string{"predicates": `[{"Name": "LowestOrdinalPriority"}]`},
		want: []wantProblem{{field: "data.predicates[0].Name", typ: field.ErrorTypeInvalid, contains: []string{
			`plugin cannot be used here (it is a scheduler score plugin (priority)); plugins allowed here: `, `NoMaxResourceCount`}}},
	}, {
		name:  "a descheduler plugin in config-scheduler",
		sched: map[string]string{"priorities": `[{"Name": "RemoveWithHighestOrdinalPriority"}]`},
		want: []wantProblem{{field: "data.priorities[0].Name", typ: field.ErrorTypeInvalid, contains: []string{
			`"RemoveWithHighestOrdinalPriority": plugin cannot be used here`}}},
	}, {
		name:    "a scheduler plugin in config-descheduler",
		desched: map[string]string{"priorities": `[{"Name": "RemoveWithHighestOrdinalPriority"}, {"Name": "LowestOrdinalPriority"}]`},
		want: []wantProblem{{configMap: "config-descheduler", field: "data.priorities[1].Name", typ: field.ErrorTypeInvalid, contains: []string{
			`"LowestOrdinalPriority": plugin cannot be used here`, `RemoveWithHighestOrdinalPriority`}}},
	}, {
		name:    "descheduler MaxSkew",
		desched: map[string]string{"priorities": `[{"Name": "RemoveWithAvailabilityNodePriority", "Args": "{\"MaxSkew\": -3}"}]`},
		want: []wantProblem{{configMap: "config-descheduler", field: "data.priorities[0].Args.MaxSkew", contains: []string{
			`Invalid value: -3: must be at least 1`}}},
	}, {
		name: "indexes are the ConfigMap's when PodFitsResources is added",
		sched: map[string]string{"predicates": `[{"Name": "EvenPodSpread"},
			{"Name": "NoMaxResourceCount", "Args": {"NumPartitions": -1}}]`},
		want: []wantProblem{{field: "data.predicates[1].Args.NumPartitions", contains: []string{`Invalid value: -1`}}},
	}, {
		name: "every problem of both ConfigMaps, config-scheduler first",
		sched: map[string]string{
			"predicates": `[{"Name": "Nope"}]`,
			"priorities": `[{"Name": "EvenPodSpread", "Weight": 12, "Args": {"MaxSkew": 0}}]`,
		},
		desched: map[string]string{"priorities": `[{"Name": "RemoveWithHighestOrdinalPriority", "Weight": 99}]`},
		want: []wantProblem{
			{field: "data.predicates[0].Name", typ: field.ErrorTypeNotSupported},
			{field: "data.priorities[0].Weight", typ: field.ErrorTypeInvalid},
			{field: "data.priorities[0].Args.MaxSkew", typ: field.ErrorTypeInvalid},
			{configMap: "config-descheduler", field: "data.priorities[0].Weight", contains: []string{`Invalid value: 99`}},
		},
	}}
	reg := plugins.MustInTreeRegistry()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sched *config.PlaceConfig
			var desched *config.RemoveConfig
			var err error
			if tc.sched != nil {
				if sched, err = config.ParsePlaceConfigMapFromData(tc.sched, inTree); err != nil {
					t.Fatalf("parse: %v", err)
				}
			}
			if tc.desched != nil {
				if desched, err = config.ParseRemoveConfigMapFromData(tc.desched, inTree); err != nil {
					t.Fatalf("parse: %v", err)
				}
			}
			ps, err := config.BuildProfiles(context.Background(), reg, sched, desched)
			checkRejected(t, ps, err, tc.want)

			// The Validate functions report the same problems.
			var want []wantProblem
			for _, p := range tc.want {
				if p.configMap == "" {
					want = append(want, p)
				}
			}
			checkProblems(t, config.ValidatePlaceConfig(sched, reg), want)
			want = nil
			for _, p := range tc.want {
				if p.configMap != "" {
					want = append(want, p)
				}
			}
			checkProblems(t, config.ValidateRemoveConfig(desched, reg), want)
		})
	}
}

// PodFitsResources is always in the scheduler profile, first unless the
// configuration places it.
func TestPodFitsResourcesIsAlwaysThere(t *testing.T) {
	tests := []struct {
		name       string
		predicates string
		want       []string
	}{
		{name: "none configured", predicates: `[]`, want: []string{"PodFitsResources"}},
		{name: "added first", predicates: `[{"Name": "NoMaxResourceCount"}, {"Name": "EvenPodSpread"}]`,
			want: []string{"PodFitsResources", "NoMaxResourceCount", "EvenPodSpread"}},
		{name: "kept where configured", predicates: `[{"Name": "EvenPodSpread"}, {"Name": "PodFitsResources"}]`,
			want: []string{"EvenPodSpread", "PodFitsResources"}},
		{name: "default", predicates: "", want: []string{"PodFitsResources"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sched, err := config.ParsePlaceConfigMapFromData(map[string]string{"predicates": tc.predicates}, inTree)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := config.BuildProfiles(context.Background(), inTree, sched, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ps.Place.FilterNames()); diff != "" {
				t.Errorf("filters (-want +got):\n%s", diff)
			}
			// The configuration itself is not changed.
			again, _ := config.ParsePlaceConfigMapFromData(map[string]string{"predicates": tc.predicates}, inTree)
			if diff := cmp.Diff(again, sched); diff != "" {
				t.Errorf("BuildProfiles changed the config (-before +after):\n%s", diff)
			}
		})
	}
}

// A registry without PodFitsResources gets nothing added, and the framework's
// rule that a scheduler profile enforces capacity is reported.
func TestNoCapacityFilterInRegistry(t *testing.T) {
	reg, err := framework.NewRegistry(lowestordinalpriority.Spec.Registration())
	if err != nil {
		t.Fatal(err)
	}
	sched := &config.PlaceConfig{Priorities: []framework.PluginConfig{pc("LowestOrdinalPriority", w(2), "")}}
	err = config.ValidatePlaceConfig(sched, reg)
	checkProblems(t, err, []wantProblem{{field: "data.predicates", typ: field.ErrorTypeRequired, contains: []string{
		"a scheduler profile needs a filter that enforces pod capacity (PodFitsResources)"}}})
	// The default descheduler policy names plugins this registry lacks
	// (a registry carries no default policy unless given one).
	reg.SetDefaults(plugins.InTreeDefaults())
	err = config.ValidateRemoveConfig(nil, reg)
	var cerr *config.Error
	if !errors.As(err, &cerr) || len(cerr.Problems) != 4 || cerr.Problems[0].ConfigMap != "config-descheduler" {
		t.Errorf("ValidateDeschedulerConfig(default, small registry) = %v", err)
	}
}

func TestDefaultPolicyBuilds(t *testing.T) {
	if err := config.ValidatePlaceConfig(nil, inTree); err != nil {
		t.Errorf("default scheduler config: %v", err)
	}
	if err := config.ValidateRemoveConfig(nil, inTree); err != nil {
		t.Errorf("default descheduler config: %v", err)
	}
	ps := defaultProfiles(t)
	got := [][]string{ps.Place.FilterNames(), ps.Place.ScoreNames(), ps.Remove.FilterNames(), ps.Remove.ScoreNames()}
	want := [][]string{
		{"PodFitsResources"},
		{"AvailabilityZonePriority(weight 10)", "AvailabilityNodePriority(weight 4)", "InUsePodPriority(weight 2)", "EvenPodSpread(weight 1)"},
		{},
		{"RemoveWithAvailabilityZonePriority(weight 10)", "RemoveWithAvailabilityNodePriority(weight 4)",
			"RemoveWithEvenPodSpreadPriority(weight 2)", "RemoveWithHighestOrdinalPriority(weight 1)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default profiles (-want +got):\n%s", diff)
	}
	if !ps.Place.Grouped() {
		t.Errorf("the default scheduler profile should take the runtime's grouped fast path")
	}
	if !ps.Place.ZoneGrouped() {
		t.Errorf("the default scheduler profile should take the zone-grouped path (every plugin framework.ZoneEquivalenceAware)")
	}
	// Defaults are fresh values.
	a, b := plugins.DefaultPlaceConfig(), plugins.DefaultPlaceConfig()
	*a.Priorities[0].Weight = 1
	a.Priorities[0].Args[0] = 'x'
	if *b.Priorities[0].Weight != 10 || b.Priorities[0].Args[0] != '{' {
		t.Errorf("DefaultSchedulerConfig returns shared values")
	}
}

func TestErrorMessageReadsWell(t *testing.T) {
	sched, err := config.ParsePlaceConfigMapFromData(map[string]string{
		"priorities": `[{"Name": "LowestOrdinalPriority"}, {"Name": "AvailabilityZonePriority", "Args": "{\"MaxSkew\": 0}"}]`,
	}, inTree)
	if err != nil {
		t.Fatal(err)
	}
	_, err = config.BuildProfiles(context.Background(), inTree, sched, nil)
	want := "config-scheduler: data.priorities[1].Args.MaxSkew: Invalid value: 0: must be at least 1"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("message spans lines: %q", err)
	}
}
