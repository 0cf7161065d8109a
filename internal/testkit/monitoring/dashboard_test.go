package monitoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const dashboardFile = "vsched-dashboard.json"

// dashboard is the part of Grafana's dashboard model the file uses;
// decoding rejects any other field, so the test sees every query.
type dashboard struct {
	UID, Title, Description, Timezone, Refresh string
	Tags                                       []string
	SchemaVersion, Version                     int
	Editable                                   bool
	Time                                       struct{ From, To string }
	Templating                                 struct{ List []variable }
	Annotations                                struct{ List []json.RawMessage }
	Panels                                     []panel
}

type datasource struct{ Type, UID string }

type variable struct {
	Name, Label, Type, Definition, AllValue string
	Query                                   json.RawMessage
	Datasource                              *datasource
	Refresh, Hide, Sort                     int
	IncludeAll, Multi                       bool
	Current                                 json.RawMessage
}

type panel struct {
	ID                       int
	Type, Title, Description string
	Datasource               datasource
	GridPos                  struct{ H, W, X, Y int }
	FieldConfig              json.RawMessage
	Targets                  []struct {
		RefID        string `json:"refId"`
		Expr         string
		LegendFormat string
		Datasource   datasource
	}
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(readFile(t, dashboardFile)))
	dec.DisallowUnknownFields()
	var d dashboard
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// labelValues matches a variable's label_values(selector, label) query.
var labelValues = regexp.MustCompile(`^label_values\((.*), *([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// dashboardQueries lists every PromQL query of the dashboard: the panels'
// targets and the variables' label_values selectors, by where they are.
func dashboardQueries(t *testing.T, d dashboard) map[string]string {
	t.Helper()
	queries := map[string]string{}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		if m == nil {
			t.Errorf("variable %s: query %q is not label_values(selector, label)", v.Name, v.Definition)
			continue
		}
		queries["variable "+v.Name] = m[1]
	}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			queries[fmt.Sprintf("panel %q target %s", p.Title, tg.RefID)] = tg.Expr
		}
	}
	return queries
}

// TestDashboardNamesExportedMetrics: every query of the dashboard names
// only metrics the code exports, and every metric vsched exports is on
// some panel.
func TestDashboardNamesExportedMetrics(t *testing.T) {
	d := readDashboard(t)
	exported := exportedSet(t)
	shown := map[string]bool{}
	for where, q := range dashboardQueries(t, d) {
		for _, n := range MetricNames(q) {
			shown[n] = true
			if !exported[n] {
				t.Errorf("%s: %s is not a metric vsched exports (query %s)", where, n, q)
			}
		}
	}
	for n := range exported {
		if IsVschedMetric(n) && !shown[n] {
			t.Errorf("%s shows no panel of %s", dashboardFile, n)
		}
	}
}

// TestDashboardPanels: panels have unique ids, a title, a description and
// queries through the dashboard's data source variable, and do not overlap
// on Grafana's 24-column grid.
func TestDashboardPanels(t *testing.T) {
	d := readDashboard(t)
	if d.UID == "" || d.Title == "" || len(d.Panels) == 0 {
		t.Fatalf("%s: uid %q, title %q, %d panels; want all three", dashboardFile, d.UID, d.Title, len(d.Panels))
	}
	ids := map[int]bool{}
	taken := map[[2]int]string{}
	for _, p := range d.Panels {
		if ids[p.ID] || p.Title == "" || p.Description == "" || len(p.Targets) == 0 {
			t.Errorf("panel %d %q: a duplicate id, or no title, description or target", p.ID, p.Title)
		}
		ids[p.ID] = true
		if g := p.GridPos; g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v is off the 24-column grid", p.Title, g)
		}
		for x := p.GridPos.X; x < p.GridPos.X+p.GridPos.W; x++ {
			for y := p.GridPos.Y; y < p.GridPos.Y+p.GridPos.H; y++ {
				if other, ok := taken[[2]int{x, y}]; ok {
					t.Fatalf("panels %q and %q overlap at %d,%d", other, p.Title, x, y)
				}
				taken[[2]int{x, y}] = p.Title
			}
		}
		for _, ds := range append([]datasource{p.Datasource}, targetSources(p)...) {
			if ds.UID != "${datasource}" {
				t.Errorf("panel %q: data source %q; want ${datasource}", p.Title, ds.UID)
			}
		}
	}
}

func targetSources(p panel) []datasource {
	var out []datasource
	for _, tg := range p.Targets {
		out = append(out, tg.Datasource)
	}
	return out
}

// grafanaVariables are what Grafana puts in place of the dashboard's
// variables before a query reaches Prometheus.
var grafanaVariables = strings.NewReplacer("$__rate_interval", "1m", "$namespace", ".*", "$statefulset", ".*", "$source_namespace", ".*")

// TestDashboardQueriesParse has promtool parse every dashboard query, as
// recording rules, with the variables filled in as Grafana would.
func TestDashboardQueriesParse(t *testing.T) {
	bin := promtool(t)
	queries := dashboardQueries(t, readDashboard(t))
	g := RuleGroup{Name: "dashboard"}
	for _, where := range slices.Sorted(maps.Keys(queries)) {
		g.Rules = append(g.Rules, Rule{Record: fmt.Sprintf("dashboard:query%d", len(g.Rules)), Expr: grafanaVariables.Replace(queries[where])})
	}
	data, err := yaml.Marshal(RuleFile{Groups: []RuleGroup{g}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dashboard-rules.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "check", "rules", path).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules on the dashboard's queries: %v\n%s", err, out)
	}
}
