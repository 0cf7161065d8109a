package sim

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/examples"
)

// TestValidateExamples checks every example file is valid.
func TestValidateExamples(t *testing.T) {
	err := fs.WalkDir(examples.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(examples.FS(), p)
		if err != nil {
			return err
		}
		ps, what := ValidateFile(p, data)
		if len(ps) > 0 {
			t.Errorf("%s: %v", p, ps)
		}
		want := "scenario"
		if strings.HasPrefix(p, "configmaps/") {
			want = strings.TrimSuffix(strings.TrimPrefix(p, "configmaps/"), ".yaml")
		}
		if what != want {
			t.Errorf("%s was taken for %q, want %q", p, what, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

const schedulerCM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: config-scheduler
data:
  priorities: |
    [{"Name": "LowestOrdinalPriority", "Weight": 2}]
`

// TestValidateConfigMaps covers every kind of problem a ConfigMap manifest
// can have.
func TestValidateConfigMaps(t *testing.T) {
	tests := []struct {
		name string
		data string
		what string
		want []string
	}{
		{"valid scheduler", schedulerCM, "config-scheduler", nil},
		{"several documents", schedulerCM + "---\n" + strings.ReplaceAll(schedulerCM, "config-scheduler", "config-descheduler") + "---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-autoscaler\ndata:\n  max-replicas: \"5\"\n",
			"config-scheduler, config-descheduler, config-autoscaler",
			[]string{`cm.yaml:14: config-descheduler: data.priorities[0].Name: Invalid value: "LowestOrdinalPriority": plugin cannot be used here (it is a scheduler score plugin (priority)); plugins allowed here: RemoveWithAvailabilityNodePriority, RemoveWithAvailabilityZonePriority, RemoveWithEvenPodSpreadPriority, RemoveWithHighestOrdinalPriority`}},
		{"custom name", strings.Replace(schedulerCM, "name: config-scheduler", "name: kafka-config-scheduler", 1), "kafka-config-scheduler", nil},
		{"misspelt name", strings.Replace(schedulerCM, "name: config-scheduler", "name: config-schedulr", 1), "",
			[]string{`cm.yaml:4: metadata.name: "config-schedulr" is not a ConfigMap vsched reads (did you mean "config-scheduler"?); vsched reads config-scheduler, config-descheduler, config-autoscaler and config-source-autoscaler`}},
		{"no name", strings.Replace(schedulerCM, "  name: config-scheduler\n", "  namespace: x\n", 1), "",
			[]string{`cm.yaml:3: metadata.name: is missing; vsched reads config-scheduler, config-descheduler, config-autoscaler and config-source-autoscaler`}},
		{"source autoscaler", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-source-autoscaler\ndata:\n  max-scale: \"20\"\n", "config-source-autoscaler", nil},
		{"source autoscaler, bad value", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kafka-source-autoscaler\ndata:\n  min-scale: \"2\"\n  max-scale: \"1\"\n", "",
			[]string{`cm.yaml:7: kafka-source-autoscaler: data.max-scale: Invalid value: 1: must be at least min-scale (2)`}},
		{"misspelt kind", strings.Replace(schedulerCM, "kind: ConfigMap", "kind: ConfigMaps", 1), "",
			[]string{`cm.yaml:2: kind: is "ConfigMaps"; vsched reads ConfigMaps`}},
		{"wrong apiVersion", strings.Replace(schedulerCM, "apiVersion: v1", "apiVersion: v2", 1), "",
			[]string{`cm.yaml:1: apiVersion: is "v2"; a ConfigMap's apiVersion is v1`}},
		{"unknown field", strings.Replace(schedulerCM, "\ndata:", "\ndat:", 1), "",
			[]string{`cm.yaml:5: dat: unknown field (did you mean "data"?); a ConfigMap has apiVersion, kind, metadata, data, binaryData, immutable`}},
		{"value not a string", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-autoscaler\ndata:\n  max-replicas: 10\n  compaction: true\n", "",
			[]string{
				`cm.yaml:6: data.max-replicas: must be a string, not a number (quote it: "10")`,
				`cm.yaml:7: data.compaction: must be a string, not a boolean (quote it: "true")`,
			}},
		{"unknown key", strings.Replace(schedulerCM, "priorities:", "priority:", 1), "",
			[]string{`cm.yaml:6: config-scheduler: data: Invalid value: "priority": unknown key; the keys of config-scheduler are "predicates" and "priorities" ("_example" is ignored)`}},
		{"malformed list", strings.Replace(schedulerCM, `"Weight": 2}]`, `"Weight" 2}]`, 1), "",
			[]string{`cm.yaml:6: config-scheduler: data.priorities: Invalid value: "[{\"Name\": \"LowestOrdinalPriority\", \"Weight\" 2}]": malformed JSON at line 1, column 45: invalid character '2' after object key`}},
		{"plugin args", strings.Replace(schedulerCM, `{"Name": "LowestOrdinalPriority", "Weight": 2}`, `{"Name": "EvenPodSpread", "Args": {"MaxSkew": 0}}`, 1), "",
			[]string{`cm.yaml:6: config-scheduler: data.priorities[0].Args.MaxSkew: Invalid value: 0: must be at least 1`}},
		{"binaryData", schedulerCM + "binaryData:\n  predicates: W10=\n", "",
			[]string{`cm.yaml:9: config-scheduler: binaryData: Invalid value: "predicates": move "predicates" to data; the configuration is read from data only`}},
		{"autoscaler rules", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-autoscaler\ndata:\n  min-replicas: \"5\"\n  max-replicas: \"2\"\n  policy: fitt\n", "",
			[]string{
				`cm.yaml:7: config-autoscaler: data.max-replicas: Invalid value: 2: must be at least min-replicas (5)`,
				`cm.yaml:8: config-autoscaler: data.policy: Unsupported value: "fitt": supported values: "fit", "utilization", "triggers" (did you mean "fit"?)`,
			}},
		{"mixed scenario and ConfigMap", schedulerCM + "---\nversion: 1\n", "",
			[]string{`cm.yaml:9: this document has no kind; a file holds one scenario, or ConfigMap manifests`}},
		{"JSON manifest", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "config-descheduler"}, "data": {"priorities": "[]"}}`, "config-descheduler", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps, what := ValidateFile("cm.yaml", []byte(tc.data))
			var got []string
			for _, p := range ps {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if len(tc.want) == 0 && what != tc.what {
				t.Errorf("taken for %q, want %q", what, tc.what)
			}
		})
	}
}

// TestLoadConfigMaps checks --configmap's loader: kinds, and problems.
func TestLoadConfigMaps(t *testing.T) {
	cms, ps := LoadConfigMaps([]NamedData{{Name: "a.yaml", Data: []byte(schedulerCM)}})
	if len(ps) > 0 || len(cms) != 1 || cms[0].Kind != SchedulerConfig {
		t.Fatalf("LoadConfigMaps = %v, %v", cms, ps)
	}
	_, ps = LoadConfigMaps([]NamedData{{Name: "b.yaml", Data: []byte("version: 1\n")}})
	if len(ps) != 1 || ps[0].String() != "b.yaml:1: is not a ConfigMap manifest: it has no kind (a scenario is given with -f)" {
		t.Errorf("a scenario given as a ConfigMap: %v", ps)
	}
	_, ps = LoadConfigMaps([]NamedData{{Name: "c.yaml", Data: []byte("# nothing\n")}})
	if len(ps) != 1 || ps[0].String() != "c.yaml: holds no ConfigMap" {
		t.Errorf("an empty file: %v", ps)
	}
}

// TestSkipsWhatVschedDoesNotRead: a deployment's manifests are given as
// they are; what vsched does not read is skipped, not an error.
func TestSkipsWhatVschedDoesNotRead(t *testing.T) {
	file := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: config-scheduler\n---\n" +
		schedulerCM +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-leader-election\ndata:\n  buckets: \"1\"\n" +
		"---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller\nspec:\n  replicas: 1\n"
	r := CheckFile("all.yaml", []byte(file), nil)
	want := FileReport{Holds: []string{"config-scheduler"}, Skipped: []Skipped{
		{File: "all.yaml", Line: 2, Kind: "Secret", Name: "config-scheduler"},
		{File: "all.yaml", Line: 15, Kind: "ConfigMap", Name: "config-leader-election"},
		{File: "all.yaml", Line: 22, Kind: "Deployment", Name: "controller"},
	}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("CheckFile (-want +got):\n%s", diff)
	}
	if got := SkippedList(r.Skipped); got != "Secret config-scheduler, ConfigMap config-leader-election, Deployment controller" {
		t.Errorf("SkippedList = %q", got)
	}
	cms, skipped, ps := ReadConfigMaps([]NamedData{{Name: "all.yaml", Data: []byte(file)}}, nil)
	if len(ps) > 0 || len(cms) != 1 || cms[0].Kind != SchedulerConfig || len(skipped) != 3 {
		t.Errorf("ReadConfigMaps = %v, %v, %v", cms, skipped, ps)
	}
	_, _, ps = ReadConfigMaps([]NamedData{{Name: "d.yaml", Data: []byte("kind: Deployment\nmetadata: {name: x}\n")}}, nil)
	if len(ps) != 1 || ps[0].String() != "d.yaml: holds no ConfigMap vsched reads (config-scheduler, config-descheduler or config-autoscaler), only Deployment x" {
		t.Errorf("nothing vsched reads: %v", ps)
	}
}
