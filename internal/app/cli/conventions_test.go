package cli

import (
	"encoding/json"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// TestEveryCommandHasHelpWithExamples walks the command tree: every
// command a user can run documents itself with examples.
func TestEveryCommandHasHelpWithExamples(t *testing.T) {
	env := OSEnv()
	root := NewCommand(Config{}, &env)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if c.Short == "" || c.Example == "" {
			t.Errorf("%s: Short %q, Example %q; every command needs both", c.CommandPath(), c.Short, c.Example)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, name := range []string{"simulate", "explain", "validate", "version", "completion"} {
		code, out, _ := run(t, map[string]string{}, name, "--help")
		if code != ExitOK || !strings.Contains(out, "Examples:\n") {
			t.Errorf("%s --help: exit %d, no examples:\n%s", name, code, out)
		}
	}
}

func TestVersion(t *testing.T) {
	old := buildInfo
	defer func() { buildInfo = old }()
	buildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{
			GoVersion: "go1.25.0",
			Main:      debug.Module{Path: "example.com/team/vsched", Version: "v0.3.0"},
			Deps:      []*debug.Module{{Path: "github.com/vsched/vsched", Version: "v1.2.3"}},
			Settings:  []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}},
		}, true
	}
	code, out, _ := run(t, map[string]string{}, "version")
	want := "vsched v1.2.3\ncommit abc123 (modified)\nbuilt into example.com/team/vsched v0.3.0\ngo go1.25.0\n"
	if code != ExitOK || out != want {
		t.Errorf("version: exit %d\n%s\nwant\n%s", code, out, want)
	}
	_, out, _ = run(t, map[string]string{}, "version", "-o", "json")
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	wantV := versionInfo{Version: "v1.2.3", Commit: "abc123", Modified: true, Main: "example.com/team/vsched v0.3.0", GoVersion: "go1.25.0"}
	if diff := cmp.Diff(wantV, v); diff != "" {
		t.Errorf("version -o json (-want +got):\n%s", diff)
	}
	buildInfo = func() (*debug.BuildInfo, bool) { return nil, false }
	_, out, _ = run(t, map[string]string{}, "version")
	if !strings.HasPrefix(out, "vsched unknown\ncommit unknown (built without VCS information)\n") {
		t.Errorf("no build information: %q", out)
	}
	if got := readVersion("v9", buildInfo).Version; got != "v9" {
		t.Errorf("an override gives version %q", got)
	}
}

func TestCompletion(t *testing.T) {
	code, out, _ := run(t, map[string]string{}, "completion", "bash")
	if code != ExitOK || !strings.Contains(out, "__start_vsched") {
		t.Errorf("bash: exit %d, not a bash completion script:\n%.300s", code, out)
	}
	code, out, _ = run(t, map[string]string{}, "completion", "zsh")
	if code != ExitOK || !strings.HasPrefix(out, "#compdef vsched") {
		t.Errorf("zsh: exit %d, not a zsh completion script:\n%.300s", code, out)
	}
	// What the scripts ask the command for: the -o values of simulate.
	code, out, _ = run(t, map[string]string{}, "__complete", "simulate", "-o", "")
	if code != ExitOK || !strings.HasPrefix(out, "table\njson\nyaml\nhtml\n") {
		t.Errorf("completing -o: exit %d\n%s", code, out)
	}
}

// TestOutputYAML: -o yaml is the JSON output's fields, as YAML.
func TestOutputYAML(t *testing.T) {
	files := map[string]string{"s.yaml": scenario}
	for _, cmd := range [][]string{
		{"simulate", "-f", "s.yaml"},
		{"explain", "-f", "s.yaml", "--source", "default/b"},
		{"validate", "s.yaml"},
	} {
		_, j, _ := run(t, files, append(cmd, "-o", "json")...)
		code, y, errOut := run(t, files, append(cmd, "-o", "yaml")...)
		if code != ExitOK {
			t.Fatalf("%s -o yaml: exit %d: %s", cmd[0], code, errOut)
		}
		var fromJSON, fromYAML any
		if err := json.Unmarshal([]byte(j), &fromJSON); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal([]byte(y), &fromYAML); err != nil {
			t.Fatalf("%s -o yaml is not YAML: %v", cmd[0], err)
		}
		if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
			t.Errorf("%s: -o yaml differs from -o json (-json +yaml):\n%s", cmd[0], diff)
		}
	}
}

// TestValidateJSON is what CI reads: the verdict, and every problem
// located.
func TestValidateJSON(t *testing.T) {
	files := map[string]string{
		"s.yaml":   scenario,
		"bad.yaml": strings.Replace(scenario, "vreplicas: 3", "vreplicas: -3", 1),
	}
	code, out, _ := run(t, files, "validate", "-o", "json", "s.yaml")
	want := `{
  "version": 1,
  "valid": true,
  "files": [
    {
      "file": "s.yaml",
      "valid": true,
      "holds": [
        "scenario"
      ]
    }
  ]
}
`
	if code != ExitOK || out != want {
		t.Errorf("valid: exit %d\n%s", code, out)
	}
	code, out, errOut := run(t, files, "validate", "-o", "json", "s.yaml", "-f", "bad.yaml")
	var got validateJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	wantV := validateJSON{Version: 1, Files: []fileVerdict{
		{File: "bad.yaml", Holds: []string{"scenario"}, Problems: []problemJSON{{Line: 7, Step: 1, StepName: "first", Field: "schedule.vreplicas",
			Message: "must not be negative, not -3", Text: `bad.yaml:7: step 1 "first": schedule.vreplicas: must not be negative, not -3`}}},
		{File: "s.yaml", Valid: true, Holds: []string{"scenario"}},
	}}
	if code != ExitInvalid || errOut != "" {
		t.Errorf("invalid: exit %d, stderr %q", code, errOut)
	}
	if diff := cmp.Diff(wantV, got); diff != "" {
		t.Errorf("-o json (-want +got):\n%s", diff)
	}
}

// TestFileInputs: -f takes files, directories (their manifests, sorted,
// not recursing) and - (stdin), repeatably and mixed with positional
// files.
func TestFileInputs(t *testing.T) {
	files := map[string]string{
		"dir/b.yaml":        cmScheduler,
		"dir/a.json":        `{"version": 1, "cluster": {"zones": ["z"], "statefulSet": {"capacity": 1}}, "steps": [{"advance": "1m"}]}`,
		"dir/notes.txt":     "not a manifest",
		"dir/sub/c.yaml":    "not: read",
		"empty/sub/x.yaml":  "",
		"<stdin>":           scenario,
		"cms/scheduler.yml": cmScheduler,
		"s.yaml":            scenario,
	}
	code, out, errOut := run(t, files, "validate", "-f", "dir", "-f", "-", "s.yaml")
	want := "dir/a.json: valid (scenario)\ndir/b.yaml: valid (config-scheduler)\n<stdin>: valid (scenario)\ns.yaml: valid (scenario)\n"
	if code != ExitOK || out != want {
		t.Errorf("exit %d, stderr %q, stdout\n%s\nwant\n%s", code, errOut, out, want)
	}
	code, _, errOut = run(t, files, "validate", "empty")
	if code != ExitUsage || errOut != "vsched validate: directory empty holds no .yaml, .yml or .json file\n" {
		t.Errorf("empty directory: exit %d, stderr %q", code, errOut)
	}
	// --configmap takes a directory too, and the scenario comes from stdin.
	_, spread, _ := run(t, files, "simulate", "-f", "s.yaml", "-o", "json")
	files["cm.yaml"] = cmScheduler
	_, want2, _ := run(t, files, "simulate", "-f", "s.yaml", "-o", "json", "--configmap", "cm.yaml")
	code, got, errOut := run(t, files, "simulate", "-f", "-", "-o", "json", "--configmap", "cms")
	// The same placements; only where the configuration came from differs.
	if code != ExitOK || strings.ReplaceAll(got, "cms/scheduler.yml", "cm.yaml") != want2 || got == spread {
		t.Errorf("--configmap DIR: exit %d, stderr %q; output differs from --configmap FILE's", code, errOut)
	}
}

// TestScenarioDirectory: simulate and explain take -f DIR for a directory
// holding one scenario and, beside it, ConfigMaps (which act as
// --configmap) and manifests vsched does not read (skipped with a note).
func TestScenarioDirectory(t *testing.T) {
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
	files := map[string]string{
		"s.yaml":            scenario,
		"cm.yaml":           cmScheduler,
		"run/s.yaml":        scenario,
		"run/cm.yaml":       cmScheduler,
		"run/web.yaml":      deployment,
		"two/a.yaml":        scenario,
		"two/b.json":        `{"version": 1, "cluster": {"zones": ["z"], "statefulSet": {"capacity": 1}}, "steps": [{"advance": "1m"}]}`,
		"none/cm.yaml":      cmScheduler,
		"bad/s.yaml":        scenario,
		"bad/cm.yaml":       strings.Replace(cmScheduler, `"Weight": 1`, `"Weight": 20`, 1),
		"plain/s.yaml":      scenario,
		"empty/sub/x.yaml":  "",
		"cms/scheduler.yml": cmScheduler,
	}
	_, want, _ := run(t, files, "simulate", "-f", "s.yaml", "--configmap", "cm.yaml", "-o", "json")
	code, got, errOut := run(t, files, "simulate", "-f", "run", "-o", "json")
	if code != ExitOK || strings.ReplaceAll(got, "run/cm.yaml", "cm.yaml") != want {
		t.Errorf("-f DIR: exit %d, stderr %q; want the output of -f FILE --configmap FILE", code, errOut)
	}
	if errOut != "vsched simulate: note: -f: skipped Deployment web, which vsched does not read\n" {
		t.Errorf("-f DIR: stderr %q", errOut)
	}
	_, plain, _ := run(t, files, "simulate", "-f", "s.yaml", "-o", "json")
	if code, got, errOut := run(t, files, "simulate", "-f", "plain", "-o", "json"); code != ExitOK || got != plain {
		t.Errorf("-f DIR of a scenario alone: exit %d, stderr %q", code, errOut)
	}
	if code, out, errOut := run(t, files, "explain", "-f", "run", "--source", "default/b"); code != ExitOK || !strings.HasPrefix(out, "Most recent decision about default/b") {
		t.Errorf("explain -f DIR: exit %d, stderr %q", code, errOut)
	}
	// -f is repeatable, as validate's: the files go together.
	if code, got, errOut := run(t, files, "simulate", "-f", "s.yaml", "-f", "cm.yaml", "-o", "json"); code != ExitOK || got != want {
		t.Errorf("-f FILE -f CONFIGMAP: exit %d, stderr %q; want the output of -f FILE --configmap FILE", code, errOut)
	}
	if code, _, errOut := run(t, files, "simulate", "-f", "s.yaml", "-f", "plain"); code != ExitInvalid || !strings.Contains(errOut, "-f s.yaml -f plain: 2 scenarios, s.yaml and plain/s.yaml;") {
		t.Errorf("-f FILE -f DIR of two scenarios: exit %d, stderr %q", code, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"simulate", "-f", "two"}, ExitInvalid,
			"vsched simulate: -f two: 2 scenarios, two/a.yaml and two/b.json; a simulation runs one (the files of a directory go together: one scenario, and ConfigMaps)\n"},
		{[]string{"explain", "-f", "two", "--source", "default/a"}, ExitInvalid,
			"vsched explain: -f two: 2 scenarios, two/a.yaml and two/b.json; a simulation runs one (the files of a directory go together: one scenario, and ConfigMaps)\n"},
		{[]string{"simulate", "-f", "none"}, ExitInvalid,
			"vsched simulate: -f none: no scenario among none/cm.yaml (a scenario is the document without kind, starting version: 1; ConfigMaps go with it)\n"},
		{[]string{"simulate", "-f", "bad"}, ExitInvalid,
			"bad/cm.yaml:6: config-scheduler: data.priorities[0].Weight: Invalid value: 20: must be between 0 and 10\n"},
		{[]string{"simulate", "-f", "run", "--configmap", "cms"}, ExitUsage,
			"vsched simulate: --configmap: config-scheduler is given twice (run/cm.yaml and cms/scheduler.yml)\n"},
		{[]string{"simulate", "-f", "empty"}, ExitUsage,
			"vsched simulate: directory empty holds no .yaml, .yml or .json file\n"},
		{[]string{"simulate", "-f", "nope"}, ExitUsage,
			"vsched simulate: cannot read scenario: open nope: file does not exist\n"},
	} {
		code, _, errOut := run(t, files, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: exit %d, stderr %q, want %d %q", tc.args, code, errOut, tc.code, tc.err)
		}
	}
}

// TestNoArgumentsIsUsage: bare vsched prints its usage on stderr, exit 2.
func TestNoArgumentsIsUsage(t *testing.T) {
	code, out, errOut := run(t, map[string]string{}, []string{}...)
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "Available Commands:") {
		t.Errorf("exit %d, stdout %q, stderr\n%s", code, out, errOut)
	}
	if !strings.HasSuffix(errOut, "vsched: no command given\nRun \"vsched help\" for usage.\n") {
		t.Errorf("stderr ends %q", errOut[max(0, len(errOut)-80):])
	}
}

// TestHelpExamplesRun runs, from the repository's root, every example of
// every command's --help that is one vsched command line (not a pipe, a
// snapshot of a live cluster, or a shell's completion): each succeeds.
// --out files are kept in memory.
func TestHelpExamplesRun(t *testing.T) {
	env := OSEnv()
	root := NewCommand(Config{}, &env)
	var lines []string
	for _, c := range root.Commands() {
		for _, l := range strings.Split(c.Example, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "vsched ") && !strings.ContainsAny(l, `|\<`) && !strings.HasPrefix(l, "vsched snapshot") && !strings.HasPrefix(l, "vsched completion") {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) < 10 {
		t.Fatalf("found %d examples: %q", len(lines), lines)
	}
	t.Chdir(filepath.Join("..", "..", ".."))
	for _, l := range lines {
		var out strings.Builder
		env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, WriteFile: func(string, []byte) error { return nil }}
		if code := Main(strings.Fields(strings.TrimPrefix(l, "vsched ")), env); code != ExitOK {
			t.Errorf("%s: exit %d\n%s", l, code, out.String())
		}
	}
}
