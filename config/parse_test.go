package config_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins"
)

// The two ConfigMaps of the design seed, verbatim but for the metadata.
const (
	seedSchedulerManifest = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: config-scheduler
  namespace: knative-eventing
data:
  predicates: |+
                  [
                    {"Name": "PodFitsResources"},
                    {"Name": "NoMaxResourceCount",
                    "Args": "{\"NumPartitions\": 100}"},
                    {"Name": "EvenPodSpread",
                    "Args": "{\"MaxSkew\": 2}"}
                  ]
  priorities: |+
                  [
                    {"Name": "AvailabilityZonePriority",
                    "Weight": 10,
                    "Args":  "{\"MaxSkew\": 2}"},
                    {"Name": "LowestOrdinalPriority",
                    "Weight": 2}
                  ]
`
	seedDeschedulerManifest = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: config-descheduler
  namespace: knative-eventing
data:
  priorities: |+
                  [
                    {"Name": "RemoveWithEvenPodSpreadPriority",
                    "Weight": 10,
                    "Args": "{\"MaxSkew\": 2}"},
                    {"Name": "RemoveWithAvailabilityZonePriority",
                    "Weight": 10,
                    "Args":  "{\"MaxSkew\": 2}"},
                    {"Name": "RemoveWithHighestOrdinalPriority",
                    "Weight": 2}
                  ]
`
)

func TestSeedExamples(t *testing.T) {
	sched, err := config.ParsePlaceConfigMap(configMapFromYAML(t, seedSchedulerManifest), inTree)
	if err != nil {
		t.Fatalf("ParseSchedulerConfigMap: %v", err)
	}
	wantSched := &config.PlaceConfig{
		ConfigMap: "config-scheduler",
		Predicates: []framework.PluginConfig{
			pc("PodFitsResources", nil, ""),
			pc("NoMaxResourceCount", nil, `{"NumPartitions":100}`),
			pc("EvenPodSpread", nil, `{"MaxSkew":2}`),
		},
		Priorities: []framework.PluginConfig{
			pc("AvailabilityZonePriority", w(10), `{"MaxSkew":2}`),
			pc("LowestOrdinalPriority", w(2), ""),
		},
	}
	if diff := cmp.Diff(wantSched, sched); diff != "" {
		t.Errorf("scheduler config (-want +got):\n%s", diff)
	}

	desched, err := config.ParseRemoveConfigMap(configMapFromYAML(t, seedDeschedulerManifest), inTree)
	if err != nil {
		t.Fatalf("ParseDeschedulerConfigMap: %v", err)
	}
	wantDesched := &config.RemoveConfig{
		ConfigMap: "config-descheduler",
		Priorities: []framework.PluginConfig{
			pc("RemoveWithEvenPodSpreadPriority", w(10), `{"MaxSkew":2}`),
			pc("RemoveWithAvailabilityZonePriority", w(10), `{"MaxSkew":2}`),
			pc("RemoveWithHighestOrdinalPriority", w(2), ""),
		},
	}
	if diff := cmp.Diff(wantDesched, desched); diff != "" {
		t.Errorf("descheduler config (-want +got):\n%s", diff)
	}

	ps, err := config.BuildProfiles(context.Background(), inTree, sched, desched)
	if err != nil {
		t.Fatalf("BuildProfiles: %v", err)
	}
	got := map[string][]string{
		"place filters":  ps.Place.FilterNames(),
		"place scores":   ps.Place.ScoreNames(),
		"remove filters": ps.Remove.FilterNames(),
		"remove scores":  ps.Remove.ScoreNames(),
	}
	want := map[string][]string{
		"place filters":  {"PodFitsResources", "NoMaxResourceCount", "EvenPodSpread"},
		"place scores":   {"AvailabilityZonePriority(weight 10)", "LowestOrdinalPriority(weight 2)"},
		"remove filters": {},
		"remove scores": {"RemoveWithEvenPodSpreadPriority(weight 10)", "RemoveWithAvailabilityZonePriority(weight 10)",
			"RemoveWithHighestOrdinalPriority(weight 2)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("profiles (-want +got):\n%s", diff)
	}
	if ps.Place.Mode() != framework.Place || ps.Remove.Mode() != framework.Remove {
		t.Errorf("modes: place %v, remove %v", ps.Place.Mode(), ps.Remove.Mode())
	}
}

// Args given as a string holding JSON and as the JSON object itself parse to
// identical configurations, whatever the spacing.
func TestArgsStringAndObjectAreIdentical(t *testing.T) {
	tests := []struct {
		name           string
		string, object string
	}{{
		name:   "seed spelling",
		string: `[{"Name": "EvenPodSpread", "Args": "{\"MaxSkew\": 2}"}]`,
		object: `[{"Name": "EvenPodSpread", "Args": {"MaxSkew": 2}}]`,
	}, {
		name:   "spacing and newlines",
		string: `[{"Name": "NoMaxResourceCount", "Args": "  {\n \"NumPartitions\" :\t100 }\n"}]`,
		object: "[{\"Name\": \"NoMaxResourceCount\", \"Args\": {\n  \"NumPartitions\":   100\n}}]",
	}, {
		name:   "empty object",
		string: `[{"Name": "EvenPodSpread", "Args": "{}"}]`,
		object: `[{"Name": "EvenPodSpread", "Args": {}}]`,
	}, {
		name:   "null and blank mean no args",
		string: `[{"Name": "EvenPodSpread", "Args": "  "}]`,
		object: `[{"Name": "EvenPodSpread", "Args": null}]`,
	}, {
		name:   "no args",
		string: `[{"Name": "EvenPodSpread", "Args": "null"}]`,
		object: `[{"Name": "EvenPodSpread"}]`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fromString, err := config.ParsePlaceConfigMapFromData(map[string]string{"predicates": tc.string}, inTree)
			if err != nil {
				t.Fatalf("string form: %v", err)
			}
			fromObject, err := config.ParsePlaceConfigMapFromData(map[string]string{"predicates": tc.object}, inTree)
			if err != nil {
				t.Fatalf("object form: %v", err)
			}
			if diff := cmp.Diff(fromString, fromObject); diff != "" {
				t.Errorf("(-string +object):\n%s", diff)
			}
			if _, err := config.BuildProfiles(context.Background(), inTree, fromObject, nil); err != nil {
				t.Errorf("BuildProfiles: %v", err)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	def := plugins.DefaultPlaceConfig()
	named := func(name string) *config.PlaceConfig {
		c := plugins.DefaultPlaceConfig()
		c.ConfigMap = name
		return c
	}
	withPriorities := func(ps ...framework.PluginConfig) *config.PlaceConfig {
		c := plugins.DefaultPlaceConfig()
		c.Priorities = ps
		return c
	}
	withPredicates := func(ps ...framework.PluginConfig) *config.PlaceConfig {
		c := plugins.DefaultPlaceConfig()
		c.Predicates = ps
		return c
	}
	tests := []struct {
		name string
		cm   *corev1.ConfigMap
		want *config.PlaceConfig
	}{
		{name: "nil ConfigMap", cm: nil, want: def},
		{name: "no data", cm: namedConfigMap("config-scheduler", nil), want: def},
		{name: "empty data", cm: namedConfigMap("config-scheduler", map[string]string{}), want: def},
		{name: "unnamed ConfigMap", cm: namedConfigMap("", nil), want: def},
		{name: "other name", cm: namedConfigMap("my-scheduler", nil), want: named("my-scheduler")},
		{name: "_example only", cm: namedConfigMap("config-scheduler", map[string]string{
			"_example": "anything { at all",
		}), want: def},
		{name: "blank values keep the defaults", cm: namedConfigMap("config-scheduler", map[string]string{
			"predicates": "", "priorities": " \n\t",
		}), want: def},
		{name: "only priorities: default predicates", cm: namedConfigMap("config-scheduler", map[string]string{
			"priorities": `[{"Name": "LowestOrdinalPriority"}]`,
		}), want: withPriorities(pc("LowestOrdinalPriority", nil, ""))},
		{name: "only predicates: default priorities", cm: namedConfigMap("config-scheduler", map[string]string{
			"predicates": `[{"Name": "PodFitsResources"}, {"Name": "EvenPodSpread"}]`,
		}), want: withPredicates(pc("PodFitsResources", nil, ""), pc("EvenPodSpread", nil, ""))},
		{name: "explicit empty lists", cm: namedConfigMap("config-scheduler", map[string]string{
			"predicates": "[]", "priorities": " [ ] ",
		}), want: &config.PlaceConfig{ConfigMap: "config-scheduler"}},
		// An entry's own keys match as in Knative; Args are the plugin's and
		// match exactly (framework.DecodeStrict).
		{name: "entry keys match case-insensitively", cm: namedConfigMap("config-scheduler", map[string]string{
			"priorities": `[{"name": "AvailabilityNodePriority", "WEIGHT": 4, "args": {"MaxSkew": 3}}]`,
		}), want: withPriorities(pc("AvailabilityNodePriority", w(4), `{"MaxSkew":3}`))},
		{name: "weight null is the default weight", cm: namedConfigMap("config-scheduler", map[string]string{
			"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": null}]`,
		}), want: withPriorities(pc("LowestOrdinalPriority", nil, ""))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.ParsePlaceConfigMap(tc.cm, inTree)
			checkAccepted(t, got, err, tc.want, func(got *config.PlaceConfig) error {
				_, err := config.BuildProfiles(context.Background(), inTree, got, nil)
				return err
			})
		})
	}
}

func TestParseDeschedulerDefaults(t *testing.T) {
	def := plugins.DefaultRemoveConfig()
	tests := []struct {
		name string
		cm   *corev1.ConfigMap
		want *config.RemoveConfig
	}{
		{name: "nil ConfigMap", cm: nil, want: def},
		{name: "empty data", cm: namedConfigMap("config-descheduler", map[string]string{}), want: def},
		{name: "_example and blank priorities", cm: namedConfigMap("config-descheduler", map[string]string{
			"_example": "x", "priorities": "  ",
		}), want: def},
		{name: "explicit empty list", cm: namedConfigMap("my-desched", map[string]string{"priorities": "[]"}),
			want: &config.RemoveConfig{ConfigMap: "my-desched"}},
		{name: "one priority", cm: namedConfigMap("config-descheduler", map[string]string{
			"priorities": `[{"Name": "RemoveWithHighestOrdinalPriority", "Weight": 0}]`,
		}), want: &config.RemoveConfig{ConfigMap: "config-descheduler", Priorities: []framework.PluginConfig{
			pc("RemoveWithHighestOrdinalPriority", w(0), ""),
		}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.ParseRemoveConfigMap(tc.cm, inTree)
			checkAccepted(t, got, err, tc.want, func(got *config.RemoveConfig) error {
				_, err := config.BuildProfiles(context.Background(), inTree, nil, got)
				return err
			})
		})
	}
	got, err := config.ParseRemoveConfigMapFromData(nil, inTree)
	if err != nil || cmp.Diff(def, got) != "" {
		t.Errorf("FromData(nil) = %+v, %v; want the default", got, err)
	}
}

// Format problems, found without any registry, each asserted by its exact
// field path and message.
func TestParseSchedulerErrors(t *testing.T) {
	const (
		invalid   = field.ErrorTypeInvalid
		required  = field.ErrorTypeRequired
		duplicate = field.ErrorTypeDuplicate
	)
	tests := []struct {
		name string
		data map[string]string
		want []wantProblem
	}{{
		name: "unknown data key, close to a known one",
		data: map[string]string{"predicate": `[]`},
		want: []wantProblem{{field: "data", typ: invalid, contains: []string{
			`Invalid value: "predicate": unknown key (did you mean "predicates"?)`,
			`the keys of config-scheduler are "predicates" and "priorities" ("_example" is ignored)`}}},
	}, {
		name: "data keys are case-sensitive",
		data: map[string]string{"Priorities": `[]`},
		want: []wantProblem{{field: "data", typ: invalid, contains: []string{`"Priorities": unknown key (did you mean "priorities"?)`}}},
	}, {
		name: "unknown data key, nothing close; all reported in key order",
		data: map[string]string{"zzz": "1", "policy": "MAXFILLUP", "_example": "ignored"},
		want: []wantProblem{
			{field: "data", typ: invalid, contains: []string{`Invalid value: "policy": unknown key; the keys`}},
			{field: "data", typ: invalid, contains: []string{`Invalid value: "zzz": unknown key; the keys`}},
		},
	}, {
		name: "malformed list: position of the offending character",
		data: map[string]string{"priorities": "[\n  {\"Name\": \"LowestOrdinalPriority\"},\n  {\"Name\" \"EvenPodSpread\"}\n]"},
		want: []wantProblem{{field: "data.priorities", typ: invalid, contains: []string{
			`Invalid value: "{\"Name\" \"EvenPodSpread\"}"`,
			`malformed JSON at line 3, column 11: invalid character '"' after object key`}}},
	}, {
		name: "malformed list: trailing comma",
		data: map[string]string{"predicates": `[{"Name": "PodFitsResources"},]`},
		want: []wantProblem{{field: "data.predicates", typ: invalid, contains: []string{
			`malformed JSON at line 1, column 31: invalid character ']' looking for beginning of value`}}},
	}, {
		name: "malformed list: unterminated",
		data: map[string]string{"predicates": "[\n{\"Name\": \"PodFitsResources\"}"},
		want: []wantProblem{{field: "data.predicates", typ: invalid, contains: []string{
			`malformed JSON at line 2, column 29: unexpected end of JSON input`}}},
	}, {
		name: "malformed list: columns count characters",
		data: map[string]string{"predicates": `[{"Name": "Zoné", x}]`},
		want: []wantProblem{{field: "data.predicates", typ: invalid, contains: []string{`malformed JSON at line 1, column 19:`}}},
	}, {
		name: "a long line is shortened in the message",
		data: map[string]string{"predicates": `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount", "Args": {"NumPartitions": 10}} {"Name": "EvenPodSpread"}]`},
		want: []wantProblem{{field: "data.predicates", typ: invalid, contains: []string{
			`Invalid value: "[{\"Name\": \"PodFitsResources\"}, {\"Name\": \"NoMaxResourceCount\", \"Args\": {\"NumPa...": ` +
				`malformed JSON at line 1, column 94: invalid character '{' after array element`}}},
	}, {
		name: "data after the list",
		data: map[string]string{"priorities": "[]\n[]"},
		want: []wantProblem{{field: "data.priorities", typ: invalid, contains: []string{
			`malformed JSON at line 2, column 1: invalid character '[' after top-level value`}}},
	}, {
		name: "an object instead of a list",
		data: map[string]string{"priorities": `{"Name": "LowestOrdinalPriority"}`},
		want: []wantProblem{{field: "data.priorities", typ: invalid, contains: []string{
			`must be a JSON list of plugins, not a JSON object; for example [{"Name": "AvailabilityZonePriority"`}}},
	}, {
		name: "null instead of a list",
		data: map[string]string{"predicates": `null`},
		want: []wantProblem{{field: "data.predicates", typ: invalid, contains: []string{`must be a JSON list of plugins; use [] for none`}}},
	}, {
		name: "a name instead of an entry",
		data: map[string]string{"predicates": `["PodFitsResources"]`},
		want: []wantProblem{{field: "data.predicates[0]", typ: invalid, contains: []string{
			`Invalid value: "\"PodFitsResources\"": must be a JSON object naming a plugin`}}},
	}, {
		name: "unknown entry field, with a suggestion",
		data: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority"}, {"Name": "EvenPodSpread", "Wieght": 3}]`},
		want: []wantProblem{{field: "data.priorities[1]", typ: invalid, contains: []string{
			`Invalid value: "Wieght": unknown field (did you mean "Weight"?); an entry has only the fields Name, Weight, Args`}}},
	}, {
		name: "unknown entry field, no suggestion",
		data: map[string]string{"priorities": `[{"Name": "EvenPodSpread", "MaxSkew": 3}]`},
		want: []wantProblem{{field: "data.priorities[0]", typ: invalid, contains: []string{
			`Invalid value: "MaxSkew": unknown field; an entry has only the fields`}}},
	}, {
		name: "field given twice, in two spellings",
		data: map[string]string{"priorities": `[{"Name": "EvenPodSpread", "name": "LowestOrdinalPriority"}]`},
		want: []wantProblem{{field: "data.priorities[0].Name", typ: duplicate, contains: []string{`"name (already given as Name)"`}}},
	}, {
		name: "missing name",
		data: map[string]string{"priorities": `[{"Weight": 2}]`},
		want: []wantProblem{{field: "data.priorities[0].Name", typ: required, contains: []string{`every entry names a plugin`}}},
	}, {
		name: "empty name",
		data: map[string]string{"predicates": `[{"Name": " "}]`},
		want: []wantProblem{{field: "data.predicates[0].Name", typ: required, contains: []string{`the plugin's name is empty`}}},
	}, {
		name: "name not a string",
		data: map[string]string{"predicates": `[{"Name": 7}]`},
		want: []wantProblem{{field: "data.predicates[0].Name", typ: invalid, contains: []string{`Invalid value: "7": must be a string`}}},
	}, {
		name: "weight as a string",
		data: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": "10"}]`},
		want: []wantProblem{{field: "data.priorities[0].Weight", typ: invalid, contains: []string{`must be an integer between 0 and 10`}}},
	}, {
		name: "weight not an integer",
		data: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 2.5}]`},
		want: []wantProblem{{field: "data.priorities[0].Weight", typ: invalid, contains: []string{`Invalid value: "2.5": must be an integer between 0 and 10`}}},
	}, {
		name: "weight beyond int32",
		data: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 4294967297}]`},
		want: []wantProblem{{field: "data.priorities[0].Weight", typ: invalid, contains: []string{`"4294967297": must be an integer between 0 and 10`}}},
	}, {
		name: "args neither object nor string",
		data: map[string]string{"priorities": `[{"Name": "EvenPodSpread", "Args": [1]}]`},
		want: []wantProblem{{field: "data.priorities[0].Args", typ: invalid, contains: []string{`must be a JSON object, or a string holding one`}}},
	}, {
		name: "every problem of every key, in order",
		data: map[string]string{
			"predicates": `[{"Nme": "PodFitsResources"}]`,
			"priorities": `[{"Name": "A", "Weight": true}, {"Name": "B", "Args": 1}]`,
			"extra":      "",
		},
		want: []wantProblem{
			{field: "data", typ: invalid, contains: []string{`"extra": unknown key`}},
			{field: "data.predicates[0]", typ: invalid, contains: []string{`"Nme": unknown field (did you mean "Name"?)`}},
			{field: "data.predicates[0].Name", typ: required},
			{field: "data.priorities[0].Weight", typ: invalid, contains: []string{`"true"`}},
			{field: "data.priorities[1].Args", typ: invalid, contains: []string{`"1"`}},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.ParsePlaceConfigMapFromData(tc.data, inTree)
			checkRejected(t, got, err, tc.want)
		})
	}
}

func TestParseDeschedulerErrors(t *testing.T) {
	tests := []struct {
		name string
		cm   *corev1.ConfigMap
		want []wantProblem
	}{{
		name: "predicates are not a descheduler key",
		cm:   namedConfigMap("config-descheduler", map[string]string{"predicates": `[]`}),
		want: []wantProblem{{configMap: "config-descheduler", field: "data", typ: field.ErrorTypeInvalid, contains: []string{
			`"predicates": unknown key; the only key of config-descheduler is "priorities" ("_example" is ignored)`}}},
	}, {
		name: "errors name the ConfigMap as it is called",
		cm:   namedConfigMap("my-descheduler", map[string]string{"priorities": `[{"Name": "X", "Wieght": 1}]`}),
		want: []wantProblem{{configMap: "my-descheduler", field: "data.priorities[0]", contains: []string{`"Wieght": unknown field`}}},
	}, {
		name: "binaryData is not read",
		cm: func() *corev1.ConfigMap {
			cm := namedConfigMap("config-descheduler", nil)
			cm.BinaryData = map[string][]byte{"priorities": []byte("[]"), "other": nil}
			return cm
		}(),
		want: []wantProblem{
			{configMap: "config-descheduler", field: "binaryData", contains: []string{`Invalid value: "other": the configuration is read from data only`}},
			{configMap: "config-descheduler", field: "binaryData", contains: []string{`Invalid value: "priorities": move "priorities" to data`}},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.ParseRemoveConfigMap(tc.cm, inTree)
			checkRejected(t, got, err, tc.want)
		})
	}
}

func TestErrorString(t *testing.T) {
	_, err := config.ParsePlaceConfigMap(namedConfigMap("sched", map[string]string{"a": "", "b": ""}), inTree)
	want := `sched: data: Invalid value: "a": unknown key; the keys of sched are "predicates" and "priorities" ("_example" is ignored); ` +
		`sched: data: Invalid value: "b": unknown key; the keys of sched are "predicates" and "priorities" ("_example" is ignored)`
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", err, want)
	}
	if strings.Count(err.Error(), "sched: ") != 2 {
		t.Errorf("every problem should name the ConfigMap: %q", err)
	}
}
