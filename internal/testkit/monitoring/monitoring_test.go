package monitoring

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite deploy/monitoring/prometheusrule.yaml from vsched-rules.yaml")

// dir is deploy/monitoring, from this package's directory.
var dir = filepath.Join("..", "..", "..", "deploy", "monitoring")

const (
	rulesFile    = "vsched-rules.yaml"
	rulesTests   = "vsched-rules.test.yaml"
	manifestFile = "prometheusrule.yaml"
	// ruleNamespace is where the PrometheusRule goes: the sample's.
	ruleNamespace = "vsched-sample"
)

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func rules(t *testing.T) *RuleFile {
	t.Helper()
	f, err := ParseRules(readFile(t, rulesFile))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestExportedMetrics: the names docs/operations.md lists are what the
// code exports in Prometheus' format.
func TestExportedMetrics(t *testing.T) {
	got, err := ExportedMetrics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"target_info",
		"vsched_autoscaler_current_replicas", "vsched_autoscaler_desired_replicas",
		"vsched_autoscaler_free_capacity", "vsched_autoscaler_hot_pods", "vsched_autoscaler_pending_vreplicas",
		"vsched_autoscaler_scale_changes_total", "vsched_autoscaler_shed_vreplicas_total",
		"vsched_scheduler_decisions_total", "vsched_scheduler_moved_vreplicas_total",
		"vsched_scheduler_pending_vreplicas", "vsched_scheduler_reservation_oldest_age_seconds",
		"vsched_scheduler_reservations",
		"vsched_scheduler_schedule_duration_seconds_bucket", "vsched_scheduler_schedule_duration_seconds_count",
		"vsched_scheduler_schedule_duration_seconds_sum", "vsched_scheduler_statefulset_ready", "vsched_scheduler_unavailable_vreplicas",
		"vsched_source_autoscaler_desired_vreplicas", "vsched_source_autoscaler_mode",
		"vsched_source_autoscaler_signal", "vsched_source_autoscaler_vreplicas",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExportedMetrics (-want +got):\n%s", diff)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range got {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_count"), "_sum")
		if IsVschedMetric(n) && !strings.Contains(string(doc), "`"+base+"`") {
			t.Errorf("docs/operations.md does not list %s", base)
		}
	}
}

// checkNames reports the metrics a query names that vsched does not export.
func checkNames(t *testing.T, exported map[string]bool, where, query string) {
	t.Helper()
	names := MetricNames(query)
	if len(names) == 0 {
		t.Errorf("%s: names no metric: %s", where, query)
	}
	for _, n := range names {
		if !exported[n] {
			t.Errorf("%s: %s is not a metric vsched exports (query %s)", where, n, query)
		}
	}
}

func exportedSet(t *testing.T) map[string]bool {
	t.Helper()
	names, err := ExportedMetrics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return set
}

// TestRulesNameExportedMetrics: every rule's expression selects metrics the
// code exports.
func TestRulesNameExportedMetrics(t *testing.T) {
	exported := exportedSet(t)
	for _, g := range rules(t).Groups {
		for _, r := range g.Rules {
			checkNames(t, exported, g.Name+"/"+r.Alert+r.Record, r.Expr)
		}
	}
}

// TestPrometheusRuleManifest: the PrometheusRule manifest is the rules
// file's groups (-update rewrites it).
func TestPrometheusRuleManifest(t *testing.T) {
	want, err := RuleManifest(readFile(t, rulesFile), ruleNamespace)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, manifestFile)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := readFile(t, manifestFile)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is not generated from %s (go test ./internal/testkit/monitoring -run Manifest -update) (-want +got):\n%s", manifestFile, rulesFile, diff)
	}
	var m struct {
		Spec RuleFile `yaml:"spec"`
	}
	if err := yaml.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*rules(t), m.Spec); diff != "" {
		t.Errorf("%s's spec differs from %s (-rules +manifest):\n%s", manifestFile, rulesFile, diff)
	}
}

func TestParseRulesRejects(t *testing.T) {
	for name, data := range map[string]string{
		"unknown field":    "groups: [{name: g, rules: [{alert: A, expr: up, for: 1m, severity: high}]}]",
		"alert and record": "groups: [{name: g, rules: [{alert: A, record: r, expr: up}]}]",
		"neither":          "groups: [{name: g, rules: [{expr: up}]}]",
		"no expr":          "groups: [{name: g, rules: [{alert: A}]}]",
	} {
		if _, err := ParseRules([]byte(data)); err == nil {
			t.Errorf("%s: ParseRules(%s) succeeded; want an error", name, data)
		}
	}
}

// promtoolTest is the shape of the promtool test file's parts read here.
type promtoolTest struct {
	RuleFiles []string `yaml:"rule_files"`
	Tests     []struct {
		Name          string `yaml:"name"`
		AlertRuleTest []struct {
			Alertname string           `yaml:"alertname"`
			ExpAlerts []map[string]any `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

// TestEveryAlertHasCases: the promtool tests hold, for every alert of the
// rules file, a case where it fires and one where it does not.
func TestEveryAlertHasCases(t *testing.T) {
	var tests promtoolTest
	if err := yaml.Unmarshal(readFile(t, rulesTests), &tests); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{rulesFile}, tests.RuleFiles); diff != "" {
		t.Errorf("%s tests other rules (-want +got):\n%s", rulesTests, diff)
	}
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	for _, r := range rules(t).Alerts() {
		if !fires[r.Alert] || !quiet[r.Alert] {
			t.Errorf("%s: alert %s has a firing case: %v, a quiet case: %v; want both", rulesTests, r.Alert, fires[r.Alert], quiet[r.Alert])
		}
	}
}

// promtool finds promtool; without it the test skips, except under
// CI=true, where CI installs Debian's prometheus package and it must run.
func promtool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("promtool"); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("promtool is not installed, and CI=true requires the rules' tests: install Debian's prometheus package")
	}
	t.Skip("skipping the rules' promtool tests: promtool is not installed (apt-get install prometheus); with CI=true it is required")
	return ""
}

// TestRulesPromtool checks the rules and runs their unit tests with
// promtool.
func TestRulesPromtool(t *testing.T) {
	bin := promtool(t)
	for _, args := range [][]string{
		{"check", "rules", rulesFile},
		{"test", "rules", rulesTests},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
