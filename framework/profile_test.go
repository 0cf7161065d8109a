package framework_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

func weight(w int32) *int32 { return &w }

func TestBuildProfile(t *testing.T) {
	capacity := framework.PluginConfig{Name: ft.CapacityName}
	tests := []struct {
		name        string
		cfg         framework.ProfileConfig
		wantErrs    []string
		wantFilters []string
		wantScores  []string
		wantGrouped bool
	}{
		{
			name: "valid",
			cfg: framework.ProfileConfig{
				Mode: framework.Place,
				Filters: []framework.PluginConfig{
					capacity,
					{Name: "RejectOrdinals", Args: []byte(`{"ordinals": [1, 2]}`)},
				},
				Scores: []framework.PluginConfig{
					{Name: ft.ScriptedName, Weight: weight(3), Args: []byte(`{"default": 10}`)},
					{Name: ft.RecorderName},
				},
			},
			wantFilters: []string{ft.CapacityName, ft.RejectName},
			wantScores:  []string{"FakeScripted(weight 3)", "FakeRecorder(weight 1)"},
		},
		{
			name: "equivalence-aware plugins only: grouped",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity, {Name: ft.RecorderName, Args: []byte("null")}},
				Scores:  []framework.PluginConfig{{Name: ft.RecorderName, Weight: weight(0), Args: []byte(" { } ")}},
			},
			wantFilters: []string{ft.CapacityName, ft.RecorderName},
			wantScores:  []string{"FakeRecorder(weight 0)"},
			wantGrouped: true,
		},
		{
			name: "a remove profile needs no capacity filter and is never grouped",
			cfg: framework.ProfileConfig{
				Mode:   framework.Remove,
				Scores: []framework.PluginConfig{{Name: removeOnlyName, Weight: weight(10)}},
			},
			wantScores: []string{"FakeRemoveOnly(weight 10)"},
		},
		{
			name: "unknown plugin lists the ones allowed there",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity, {Name: "PodFitsResource"}},
			},
			wantErrs: []string{`filters[1].Name: Unsupported value: "PodFitsResource": supported values: "FakeCapacity", "FakeFailingNew", "FakeRecorder", "FakeReject"`},
		},
		{
			name: "wrong kind",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity, {Name: ft.ScriptedName}},
			},
			wantErrs: []string{`filters[1].Name: Invalid value: "FakeScripted": plugin cannot be used here (it is a score plugin (priority) for scheduling and descheduling); plugins allowed here: FakeCapacity, FakeFailingNew, FakeRecorder, FakeReject`},
		},
		{
			name: "wrong mode",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity},
				Scores:  []framework.PluginConfig{{Name: removeOnlyName}},
			},
			wantErrs: []string{`scores[0].Name: Invalid value: "FakeRemoveOnly": plugin cannot be used here (it is a descheduler score plugin (priority)); plugins allowed here: FakeBroken, FakeRecorder, FakeScripted`},
		},
		{
			name: "scheduler-only filter in a descheduler profile",
			cfg: framework.ProfileConfig{
				Mode:    framework.Remove,
				Filters: []framework.PluginConfig{capacity},
			},
			wantErrs: []string{`filters[0].Name: Invalid value: "FakeCapacity": plugin cannot be used here (it is a scheduler filter (predicate)); plugins allowed here: FakeRecorder, FakeReject`},
		},
		{
			name: "duplicate through an alias",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity, {Name: ft.RejectName}, {Name: "RejectOrdinals"}},
			},
			wantErrs: []string{`filters[2].Name: Duplicate value: "RejectOrdinals (also at index 1)"`},
		},
		{
			name: "weights out of range",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity},
				Scores: []framework.PluginConfig{
					{Name: ft.ScriptedName, Weight: weight(11)},
					{Name: ft.RecorderName, Weight: weight(-1)},
				},
			},
			wantErrs: []string{
				"scores[0].Weight: Invalid value: 11: must be between 0 and 10",
				"scores[1].Weight: Invalid value: -1: must be between 0 and 10",
			},
		},
		{
			name: "weight on a filter",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{{Name: ft.CapacityName, Weight: weight(1)}},
			},
			wantErrs: []string{"filters[0].Weight: Forbidden: filters (predicates) take no weight"},
		},
		{
			name: "args on a plugin without args",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{{Name: ft.CapacityName, Args: []byte(`{"x": 1}`)}},
			},
			wantErrs: []string{"filters[0].Args: Forbidden: plugin FakeCapacity takes no args"},
		},
		{
			name: "args that are not an object, on a plugin without args",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{{Name: ft.CapacityName, Args: []byte(`[]`)}},
			},
			wantErrs: []string{"filters[0].Args: Forbidden: plugin FakeCapacity takes no args"},
		},
		{
			name: "args errors carry their paths",
			cfg: framework.ProfileConfig{
				Mode: framework.Place,
				Filters: []framework.PluginConfig{
					capacity,
					{Name: ft.RejectName, Args: []byte(`{"ordinals": [0, -3]}`)},
				},
				Scores: []framework.PluginConfig{
					{Name: ft.RecorderName},
					{Name: ft.ScriptedName, Args: []byte(`{"default": 101}`)},
					{Name: removeOnlyName},
				},
			},
			// Every problem at once, filters first.
			wantErrs: []string{
				"filters[1].Args.ordinals[1]: Invalid value: -3: must not be negative",
				"scores[1].Args.default: Invalid value: 101: must be between 0 and 100",
				`scores[2].Name: Invalid value: "FakeRemoveOnly": plugin cannot be used here (it is a descheduler score plugin (priority)); plugins allowed here: FakeBroken, FakeRecorder, FakeScripted`,
			},
		},
		{
			name: "malformed args",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity, {Name: ft.RejectName, Args: []byte(`{"ordinals": "1"}`)}},
			},
			wantErrs: []string{`filters[1].Args: Invalid value: "{\"ordinals\": \"1\"}": field ordinals: cannot use JSON string as []int32`},
		},
		{
			name: "constructor error",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity, {Name: failingNewName, Args: []byte(`{}`)}},
			},
			wantErrs: []string{`filters[1].Args: Invalid value: "{}": cannot reach the cluster`},
		},
		{
			name: "registered kind not implemented",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{capacity},
				Scores:  []framework.PluginConfig{{Name: brokenName}},
			},
			wantErrs: []string{"scores[0].Name: Internal error: plugin FakeBroken is registered as a scheduler score plugin (priority) but does not implement it"},
		},
		{
			name: "no capacity enforcer",
			cfg: framework.ProfileConfig{
				Mode:    framework.Place,
				Filters: []framework.PluginConfig{{Name: ft.RejectName}},
			},
			wantErrs: []string{"filters: Required value: a scheduler profile needs a filter that enforces pod capacity (PodFitsResources)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, errs := framework.BuildProfile(context.Background(), fakeRegistry(t), tt.cfg, field.NewPath("filters"), field.NewPath("scores"))
			if diff := cmp.Diff(tt.wantErrs, errStrings(errs)); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(errs) > 0 {
				if p != nil {
					t.Errorf("BuildProfile returned a profile with errors")
				}
				return
			}
			if diff := cmp.Diff(tt.wantFilters, p.FilterNames(), cmp.Comparer(bothEmpty)); diff != "" {
				t.Errorf("FilterNames (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantScores, p.ScoreNames(), cmp.Comparer(bothEmpty)); diff != "" {
				t.Errorf("ScoreNames (-want +got):\n%s", diff)
			}
			if p.Mode() != tt.cfg.Mode || p.Grouped() != tt.wantGrouped {
				t.Errorf("Mode %v Grouped %v, want %v %v", p.Mode(), p.Grouped(), tt.cfg.Mode, tt.wantGrouped)
			}
		})
	}
}

// bothEmpty treats nil and empty name lists alike and compares the rest.
func bothEmpty(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
}

func TestBuildProfileNilRegistry(t *testing.T) {
	_, errs := framework.BuildProfile(context.Background(), nil, framework.ProfileConfig{
		Filters: []framework.PluginConfig{{Name: ft.CapacityName}},
	}, field.NewPath("filters"), field.NewPath("scores"))
	want := []string{`filters[0].Name: Unsupported value: "FakeCapacity"`}
	if diff := cmp.Diff(want, errStrings(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// statefulScorer is a comparable type whose values may not be hashable: an
// interface field holding a slice.
type statefulScorer struct{ state any }

func (statefulScorer) Name() string { return "Stateful" }
func (statefulScorer) Score(context.Context, *framework.Decision, int32) (int64, *framework.Status) {
	return 0, nil
}

func TestNewProfile(t *testing.T) {
	aware := ft.PodSpreadScorer{}
	tests := []struct {
		name        string
		mode        framework.Mode
		filters     []framework.FilterPlugin
		scores      []framework.WeightedScore
		wantErr     string
		wantGrouped bool
	}{
		{
			name: "grouped", mode: framework.Place, filters: []framework.FilterPlugin{ft.CapacityFilter{}},
			scores: []framework.WeightedScore{{Plugin: aware, Weight: 1}, {Plugin: ft.LowestOrdinalScorer{}, Weight: 0}}, wantGrouped: true,
		},
		{
			name: "a filter not equivalence-aware", mode: framework.Place,
			filters: []framework.FilterPlugin{ft.CapacityFilter{}, &ft.RejectFilter{}},
			scores:  []framework.WeightedScore{{Plugin: aware, Weight: 1}},
		},
		{
			name: "a scorer not equivalence-aware", mode: framework.Place, filters: []framework.FilterPlugin{ft.CapacityFilter{}},
			scores: []framework.WeightedScore{{Plugin: &ft.ScriptedScorer{}, Weight: 1}},
		},
		{
			name: "a scorer that says it is not", mode: framework.Place, filters: []framework.FilterPlugin{ft.CapacityFilter{}},
			scores: []framework.WeightedScore{{Plugin: &ft.ScriptedScorer{Equivalent: false}, Weight: 0}},
		},
		{
			name: "a normalizer", mode: framework.Place, filters: []framework.FilterPlugin{ft.CapacityFilter{}},
			scores: []framework.WeightedScore{{Plugin: &ft.NormalizingScorer{}, Weight: 1}},
		},
		{
			name: "remove", mode: framework.Remove,
			scores: []framework.WeightedScore{{Plugin: aware, Weight: 1}},
		},
		{
			// Its value cannot be a map key; it must still build.
			name: "unhashable plugin value", mode: framework.Place, filters: []framework.FilterPlugin{ft.CapacityFilter{}},
			scores: []framework.WeightedScore{{Plugin: statefulScorer{state: []int{1}}, Weight: 1}, {Plugin: statefulScorer{state: []int{1}}, Weight: 1}},
		},
		{name: "empty remove profile", mode: framework.Remove},
		{name: "no capacity enforcer", mode: framework.Place, wantErr: "a scheduler profile needs a filter that enforces pod capacity (PodFitsResources)"},
		{
			name: "nil filter", mode: framework.Place, filters: []framework.FilterPlugin{ft.CapacityFilter{}, nil},
			wantErr: "nil filter plugin",
		},
		{
			name: "nil scorer", mode: framework.Place, filters: []framework.FilterPlugin{ft.CapacityFilter{}},
			scores: []framework.WeightedScore{{}}, wantErr: "nil score plugin",
		},
		{
			name: "weight too high", mode: framework.Place, filters: []framework.FilterPlugin{ft.CapacityFilter{}},
			scores: []framework.WeightedScore{{Plugin: aware, Weight: 11}}, wantErr: "plugin FakePodSpread: weight 11 is outside [0, 10]",
		},
		{
			name: "negative weight", mode: framework.Remove,
			scores: []framework.WeightedScore{{Plugin: aware, Weight: -1}}, wantErr: "plugin FakePodSpread: weight -1 is outside [0, 10]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := framework.NewProfile(tt.mode, tt.filters, tt.scores)
			wantError(t, "NewProfile", err, tt.wantErr)
			if err != nil {
				return
			}
			if p.Grouped() != tt.wantGrouped {
				t.Errorf("Grouped = %v, want %v", p.Grouped(), tt.wantGrouped)
			}
			if p.Mode() != tt.mode {
				t.Errorf("Mode = %v", p.Mode())
			}
		})
	}
}

func TestNewProfileCopiesFilters(t *testing.T) {
	filters := []framework.FilterPlugin{ft.CapacityFilter{}, &ft.RejectFilter{}}
	p, err := framework.NewProfile(framework.Place, filters, nil)
	if err != nil {
		t.Fatal(err)
	}
	filters[1] = &ft.RejectFilter{PluginName: "Other"}
	if diff := cmp.Diff([]string{ft.CapacityName, ft.RejectName}, p.FilterNames()); diff != "" {
		t.Errorf("the profile follows the caller's slice (-want +got):\n%s", diff)
	}
}

func TestModes(t *testing.T) {
	if framework.Place.String() != "place" || framework.Remove.String() != "remove" {
		t.Errorf("Mode strings: %s %s", framework.Place, framework.Remove)
	}
	both := framework.ForPlace | framework.ForRemove
	for _, tt := range []struct {
		m           framework.Modes
		place, rmve bool
	}{{framework.ForPlace, true, false}, {framework.ForRemove, false, true}, {both, true, true}, {0, false, false}} {
		if tt.m.Has(framework.Place) != tt.place || tt.m.Has(framework.Remove) != tt.rmve {
			t.Errorf("Modes(%d).Has: place %v remove %v", tt.m, tt.m.Has(framework.Place), tt.m.Has(framework.Remove))
		}
	}
}
