package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// run runs the command with files served from an in-memory map (nil entries
// fail to read) and returns the exit code, stdout and stderr.
func run(t *testing.T, files map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return runEnv(t, files, nil, args...)
}

func runEnv(t *testing.T, files map[string]string, tweak func(*Env), args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := Env{
		Stdin:  strings.NewReader(files["<stdin>"]),
		Stdout: &stdout,
		Stderr: &stderr,
		ReadFile: func(name string) ([]byte, error) {
			data, ok := files[name]
			if !ok {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
			}
			return []byte(data), nil
		},
		WriteFile: func(name string, data []byte) error {
			files[name] = string(data)
			return nil
		},
		ReadDir: func(name string) ([]string, bool, error) {
			return memDir(files, name)
		},
	}
	if tweak != nil {
		tweak(&env)
	}
	code := Main(args, env)
	out, errOut := stdout.String(), stderr.String()
	for _, bad := range []string{"goroutine ", "panic:", ".go:"} {
		if strings.Contains(errOut, bad) {
			t.Errorf("stderr looks like a stack trace (%q):\n%s", bad, errOut)
		}
	}
	return code, out, errOut
}

// memDir lists the in-memory files directly under dir: a name is a
// directory when some file's name starts with it and a slash.
func memDir(files map[string]string, dir string) ([]string, bool, error) {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var out []string
	isDir := false
	for name := range files {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			isDir = true
			if !strings.Contains(rest, "/") && isManifestName(rest) {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out, isDir, nil
}

const scenario = `version: 1
cluster:
  zones: [zone-a, zone-b]
  statefulSet: {replicas: 2, capacity: 10}
steps:
  - name: first
    schedule: {source: default/a, vreplicas: 3}
  - schedule: {source: default/b, vreplicas: 4}
`

func TestUsage(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		out, inErr string
	}{
		{nil, ExitUsage, "", "Usage:"},
		{[]string{"frobnicate"}, ExitUsage, "", `vsched: unknown command "frobnicate"; the commands are completion, explain, get, simulate, snapshot, validate, version and help`},
		{[]string{"simulat"}, ExitUsage, "", `vsched: unknown command "simulat" (did you mean "simulate"?)`},
		{[]string{"help"}, ExitOK, "Available Commands:", ""},
		{[]string{"--help"}, ExitOK, "Exit codes:", ""},
		{[]string{"help", "simulate"}, ExitOK, "vsched simulate [-f SCENARIO|DIR|-]", ""},
		{[]string{"simulate", "-h"}, ExitOK, "--configmap", ""},
		{[]string{"explain", "--help"}, ExitOK, "vsched explain [-f SCENARIO|DIR|-]... --source", ""},
		{[]string{"validate", "-h"}, ExitOK, "vsched validate [-f FILE|DIR|-]...", ""},
		{[]string{"simulate", "--bogus"}, ExitUsage, "", "vsched simulate: unknown flag: --bogus\nRun \"vsched help simulate\" for usage."},
		{[]string{"simulate", "-o", "xml"}, ExitUsage, "", `vsched simulate: -o "xml": the formats are table, json, yaml and html`},
		{[]string{"simulate", "scenario.yaml"}, ExitUsage, "", `vsched simulate: unexpected argument "scenario.yaml" (give the scenario with -f)`},
		{[]string{"simulate", "-f", "missing.yaml"}, ExitUsage, "", "vsched simulate: cannot read scenario: open missing.yaml: file does not exist"},
		{[]string{"explain"}, ExitUsage, "", "vsched explain: --source is required: the source to explain, as namespace/name"},
		{[]string{"explain", "--source", "nons"}, ExitUsage, "", `vsched explain: --source: "nons" is not a source key; write namespace/name`},
		{[]string{"explain", "--source", "a/b", "-o", "html"}, ExitUsage, "", `vsched explain: -o "html": the formats are text, json and yaml`},
		{[]string{"validate"}, ExitUsage, "", "vsched validate: no file given"},
		{[]string{"validate", "missing.yaml"}, ExitUsage, "", "vsched validate: cannot read file: open missing.yaml: file does not exist"},
		{[]string{"validate", "-f", "-", "-f", "-"}, ExitUsage, "", "vsched validate: - (standard input) is given twice"},
		{[]string{"version", "extra"}, ExitUsage, "", `vsched version: unexpected argument "extra"`},
		{[]string{"completion", "fish"}, ExitUsage, "", `vsched completion: shell "fish": the shells are bash and zsh`},
		{[]string{"completion"}, ExitUsage, "", `vsched completion: give one shell: bash or zsh`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := run(t, map[string]string{}, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, tc.code, errOut)
			}
			if !strings.Contains(out, tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out)
			}
			if !strings.Contains(errOut, tc.inErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.inErr, errOut)
			}
		})
	}
}

// TestSimulateBuiltin is `vsched simulate` with no arguments: the built-in
// scenario as a table, as docs/cli.md shows it.
func TestSimulateBuiltin(t *testing.T) {
	code, out, errOut := run(t, map[string]string{}, "simulate")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want, err := os.ReadFile(filepath.Join("..", "sim", "testdata", "golden", "builtin.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("vsched simulate printed something else than internal/app/sim/testdata/golden/builtin.txt:\n%s", out)
	}
	for _, s := range []string{`Scenario "built-in"`, "Step 1/10: sources arrive", "ScaledUp", "node-not-ready", "CompactionStarted", "podsUsed 3, lowerBound 3"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q", s)
		}
	}
}

func TestSimulateFormats(t *testing.T) {
	files := map[string]string{"s.yaml": scenario}
	code, out, errOut := run(t, files, "simulate", "-f", "s.yaml", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Version int `json:"version"`
		Steps   []struct {
			Name       string                       `json:"name"`
			Replicas   int                          `json:"replicas"`
			Placements map[string][]json.RawMessage `json:"placements"`
			Pending    map[string]int               `json:"pending"`
			Metrics    map[string]json.RawMessage   `json:"metrics"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("-o json is not JSON: %v\n%s", err, out)
	}
	if res.Version != 1 || len(res.Steps) != 2 || res.Steps[0].Name != "first" || len(res.Steps[1].Placements) != 2 || res.Steps[1].Pending["default/b"] != 0 {
		t.Errorf("unexpected result: %+v", res)
	}
	for _, k := range []string{"podsUsed", "lowerBound", "moved", "sources"} {
		if _, ok := res.Steps[0].Metrics[k]; !ok {
			t.Errorf("metrics lack %s", k)
		}
	}

	// Same input, same bytes.
	_, again, _ := run(t, files, "simulate", "-f", "s.yaml", "-o", "json")
	if again != out {
		t.Error("two runs of -o json differ")
	}

	code, out, _ = run(t, files, "simulate", "-f", "s.yaml", "-o", "html", "--out", "report.html")
	if code != ExitOK || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if page := files["report.html"]; !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, `data-source="default/b"`) {
		t.Errorf("--out report.html holds %.200q", page)
	}

	// The scenario from stdin, flags after it.
	files["<stdin>"] = scenario
	code, out, _ = run(t, files, "simulate", "--quiet", "-f", "-")
	if code != ExitOK || !strings.Contains(out, `Scenario "<stdin>"`) {
		t.Errorf("-f -: exit %d\n%s", code, out)
	}
}

// TestSimulateBadInput: each kind of bad input is one line naming the file,
// the step and the field, and exit code 1.
func TestSimulateBadInput(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"unknown step", scenario + "  - explode: {}\n",
			`bad.yaml:9: step 3: explode: unknown step "explode"; a step is one of schedule, delete, cordon, uncordon, fail, recover, autoscale, compact, advance, configmap, signal, traffic, usage`},
		{"unknown node", scenario + "  - name: outage\n    fail: {node: node-9}\n",
			`bad.yaml:10: step 3 "outage": fail.node: unknown node "node-9"; the nodes are node-zone-a-0, node-zone-b-0`},
		{"negative vreplicas", strings.Replace(scenario, "vreplicas: 3", "vreplicas: -3", 1),
			`bad.yaml:7: step 1 "first": schedule.vreplicas: must not be negative, not -3`},
		{"malformed YAML", strings.Replace(scenario, "[zone-a, zone-b]", "[zone-a, zone-b", 1),
			`bad.yaml:3: malformed YAML: did not find expected ',' or ']'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range [][]string{{"simulate", "-f", "bad.yaml"}, {"explain", "-f", "bad.yaml", "--source", "default/a"}} {
				code, out, errOut := run(t, map[string]string{"bad.yaml": tc.data}, cmd...)
				if code != ExitInvalid {
					t.Errorf("%s: exit %d, want %d", cmd[0], code, ExitInvalid)
				}
				if out != "" {
					t.Errorf("%s: stdout %q, want nothing", cmd[0], out)
				}
				if errOut != tc.want+"\n" {
					t.Errorf("%s: stderr\n%s\nwant\n%s", cmd[0], errOut, tc.want)
				}
			}
		})
	}
}

const cmScheduler = `apiVersion: v1
kind: ConfigMap
metadata:
  name: config-scheduler
data:
  priorities: '[{"Name": "LowestOrdinalPriority", "Weight": 1}]'
`

func TestSimulateConfigMap(t *testing.T) {
	files := map[string]string{"s.yaml": scenario, "cm.yaml": cmScheduler,
		"bad-cm.yaml": strings.Replace(cmScheduler, `"Weight": 1`, `"Weight": 20`, 1)}
	_, spread, _ := run(t, files, "simulate", "-f", "s.yaml", "-o", "json")
	code, packed, errOut := run(t, files, "simulate", "-f", "s.yaml", "-o", "json", "--configmap", "cm.yaml")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if packed == spread {
		t.Error("--configmap changed nothing")
	}
	if !strings.Contains(packed, `"podName": "adapter-0",`) || strings.Contains(packed, `"podName": "adapter-1",`) {
		t.Errorf("LowestOrdinalPriority should pack everything on adapter-0:\n%s", packed)
	}
	code, _, errOut = run(t, files, "simulate", "-f", "s.yaml", "--configmap", "bad-cm.yaml")
	if code != ExitInvalid || errOut != "bad-cm.yaml:6: config-scheduler: data.priorities[0].Weight: Invalid value: 20: must be between 0 and 10\n" {
		t.Errorf("invalid --configmap: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = run(t, files, "simulate", "-f", "s.yaml", "--configmap", "cm.yaml", "--configmap", "cm.yaml")
	if code != ExitUsage || !strings.Contains(errOut, "config-scheduler is given twice") {
		t.Errorf("a ConfigMap twice: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = run(t, files, "simulate", "-f", "s.yaml", "--configmap", "nope.yaml")
	if code != ExitUsage || !strings.Contains(errOut, "cannot read ConfigMap: open nope.yaml") {
		t.Errorf("unreadable --configmap: exit %d, stderr %q", code, errOut)
	}
}

func TestValidate(t *testing.T) {
	files := map[string]string{
		"s.yaml":      scenario,
		"cm.yaml":     cmScheduler,
		"bad.yaml":    strings.Replace(scenario, "vreplicas: 3", "vreplicas: -3", 1) + "  - fail: {zone: zone-q}\n",
		"bad-cm.yaml": strings.Replace(cmScheduler, "LowestOrdinalPriority", "LowestOrdinal", 1),
	}
	code, out, errOut := run(t, files, "validate", "s.yaml", "cm.yaml")
	if code != ExitOK || out != "s.yaml: valid (scenario)\ncm.yaml: valid (config-scheduler)\n" || errOut != "" {
		t.Errorf("valid files: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = run(t, files, "validate", "s.yaml", "bad.yaml", "bad-cm.yaml")
	want := "s.yaml: valid (scenario)\n" +
		`bad.yaml:7: step 1 "first": schedule.vreplicas: must not be negative, not -3` + "\n" +
		`bad.yaml:9: step 3: fail.zone: unknown zone "zone-q" (did you mean "zone-a"?); the zones are zone-a, zone-b` + "\n" +
		`bad-cm.yaml:6: config-scheduler: data.priorities[0].Name: Unsupported value: "LowestOrdinal": supported values: "AvailabilityNodePriority", "AvailabilityZonePriority", "BalancedZonePriority", "EvenPodSpread", "InUsePodPriority", "LowestOrdinalPriority"` + "\n"
	if code != ExitInvalid || out != want {
		t.Errorf("invalid files: exit %d, stdout\n%s\nwant\n%s", code, out, want)
	}
}

func TestExplain(t *testing.T) {
	files := map[string]string{"s.yaml": scenario}
	code, out, errOut := run(t, files, "explain", "-f", "s.yaml", "--source", "default/b")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`Most recent decision about default/b: step 2 "schedule default/b=4", placed 4 of 4 vreplica(s) asked, 0 pending.`,
		"default/b: place decision", "vreplica 1 -> adapter-", "AvailabilityZonePriority", "InUsePodPriority 100 x2"} {
		if !strings.Contains(out, want) {
			t.Errorf("explanation lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, files, "explain", "-f", "s.yaml", "--source", "default/b", "-o", "json")
	var ex struct {
		Source      string `json:"source"`
		Step        int    `json:"step"`
		Explanation struct {
			Steps []json.RawMessage `json:"steps"`
		} `json:"explanation"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &ex) != nil || ex.Source != "default/b" || ex.Step != 2 || len(ex.Explanation.Steps) != 4 {
		t.Errorf("-o json: exit %d, %+v\n%s", code, ex, out)
	}
	code, _, errOut = run(t, files, "explain", "-f", "s.yaml", "--source", "default/c")
	if code != ExitInvalid || errOut != "vsched explain: source default/c is never scheduled in s.yaml (did you mean \"default/a\"?); its sources are default/a, default/b\n" {
		t.Errorf("unknown source: exit %d, stderr %q", code, errOut)
	}
	files["z.yaml"] = strings.Replace(scenario, "vreplicas: 3", "vreplicas: 0", 1)
	code, _, errOut = run(t, files, "explain", "-f", "z.yaml", "--source", "default/a")
	if code != ExitInvalid || !strings.Contains(errOut, "made no decision about it") {
		t.Errorf("no decision: exit %d, stderr %q", code, errOut)
	}
}

// TestProgress: the bar shows on a terminal for big scenarios, and not
// with --quiet or when stderr is not a terminal.
func TestProgress(t *testing.T) {
	old := progressThreshold
	progressThreshold = 1
	defer func() { progressThreshold = old }()
	files := map[string]string{"s.yaml": scenario}
	terminal := func(e *Env) { e.IsTerminal = func(io.Writer) bool { return true } }
	_, _, errOut := runEnv(t, files, terminal, "simulate", "-f", "s.yaml")
	if !strings.Contains(errOut, "operations") || !strings.Contains(errOut, "\r[") || !strings.HasSuffix(errOut, "\r\033[K") {
		t.Errorf("no progress bar on a terminal: %q", errOut)
	}
	_, _, errOut = runEnv(t, files, terminal, "simulate", "-f", "s.yaml", "--quiet")
	if errOut != "" {
		t.Errorf("--quiet: stderr %q", errOut)
	}
	_, _, errOut = runEnv(t, files, nil, "simulate", "-f", "s.yaml")
	if errOut != "" {
		t.Errorf("not a terminal: stderr %q", errOut)
	}
	progressThreshold = old
	_, _, errOut = runEnv(t, files, terminal, "simulate", "-f", "s.yaml")
	if errOut != "" {
		t.Errorf("a small scenario: stderr %q", errOut)
	}
}

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	p := &progressBar{w: &buf}
	p.update(1, 4)
	p.update(4, 4)
	p.finish()
	want := "\r[#######.......................]  25%  1/4 operations\r[##############################] 100%  4/4 operations\r\033[K"
	if buf.String() != want {
		t.Errorf("bar drew %q, want %q", buf.String(), want)
	}
	var nilBar *progressBar
	nilBar.finish() // must not panic
}

// TestInternalErrorIsOneLine: a panic becomes one line and exit 1.
func TestInternalErrorIsOneLine(t *testing.T) {
	env := Env{Stdout: io.Discard, Stderr: &bytes.Buffer{}, ReadFile: func(string) ([]byte, error) { panic(errors.New("boom")) }}
	if code := Main([]string{"simulate", "-f", "x"}, env); code != ExitInvalid {
		t.Errorf("exit %d", code)
	}
	if got := env.Stderr.(*bytes.Buffer).String(); got != "vsched: internal error: boom\n" {
		t.Errorf("stderr %q", got)
	}
}

// TestReadmeSection keeps the command's reference honest: it shows the
// built-in scenario's output as it is, and its scenarios are valid.
func TestReadmeSection(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join("..", "sim", "testdata", "golden", "builtin.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, table) {
		t.Error("docs/cli.md does not show the built-in scenario's current output (internal/app/sim/testdata/golden/builtin.txt)")
	}
	for i, block := range strings.Split(string(doc), "```yaml\n")[1:] {
		block = block[:strings.Index(block, "```")]
		if !strings.HasPrefix(block, "version: 1") {
			continue
		}
		code, out, _ := run(t, map[string]string{"doc.yaml": block}, "validate", "doc.yaml")
		if code != ExitOK {
			t.Errorf("scenario %d of docs/cli.md is invalid:\n%s", i+1, out)
		}
	}
}
