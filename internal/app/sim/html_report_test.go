package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
)

func parsePage(t *testing.T, page []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// section returns the report's section of step i (1-based).
func section(doc *html.Node, i int) *html.Node {
	var out *html.Node
	walk(doc, func(n *html.Node) {
		if v, _ := attr(n, "data-step"); n.Data == "section" && v == fmt.Sprint(i) {
			out = n
		}
	})
	return out
}

// TestHTMLChangedCells: a step outlines the cells whose vreplicas
// changed, saying what they held and where the vreplicas came from.
func TestHTMLChangedCells(t *testing.T) {
	_, page := renderHTML(t, "builtin.yaml")
	doc := parsePage(t, page)
	// Step 4's autoscaler loop evicts from adapter-1: shop/orders goes
	// from adapter-1 (4) to adapter-4 (4): best fit fills the fullest pod
	// the spread allows.
	got := map[string]string{}
	walk(section(doc, 4), func(n *html.Node) {
		if n.Data == "rect" && hasClass(n, "changed") {
			if src, _ := attr(n, "data-source"); src == "shop/orders" {
				pod, _ := attr(n, "data-pod")
				was, _ := attr(n, "data-was")
				got[pod] = was + " | " + text(n)
			}
		}
	})
	want := map[string]string{
		"adapter-4": "0 | adapter-4 · shop/orders: 4 vreplica(s), was 0; came from adapter-1 (-4)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changed cells of shop/orders in step 4 (-want +got):\n%s", diff)
	}
	// Step 1 has nothing before it: nothing is outlined.
	walk(section(doc, 1), func(n *html.Node) {
		if n.Data == "rect" && hasClass(n, "changed") {
			t.Errorf("step 1 outlines a cell: %v", n.Attr)
		}
	})
}

// TestHTMLUnchangedStepsCollapsed: a step that changed nothing keeps its
// heading, with its map and table folded away.
func TestHTMLUnchangedStepsCollapsed(t *testing.T) {
	res, page := renderHTML(t, "failures.yaml")
	doc := parsePage(t, page)
	var collapsed []int
	for i := range res.Steps {
		sec := section(doc, i+1)
		var details *html.Node
		walk(sec, func(n *html.Node) {
			if n.Data == "details" {
				details = n
			}
		})
		_, open := attr(details, "open")
		if hasClass(sec, "unchanged") == open {
			t.Errorf("step %d: unchanged %v, details open %v", i+1, hasClass(sec, "unchanged"), open)
		}
		if !open {
			collapsed = append(collapsed, i+1)
		}
	}
	// The autoscaler's loop, within its grace, changes nothing while the
	// clock moves.
	if diff := cmp.Diff([]int{6}, collapsed); diff != "" {
		t.Errorf("collapsed steps (-want +got):\n%s", diff)
	}
}

// TestHTMLTimeline: the chart's series hold every step's values.
func TestHTMLTimeline(t *testing.T) {
	res, page := renderHTML(t, "builtin.yaml")
	series := map[string]string{}
	walk(parsePage(t, page), func(n *html.Node) {
		if name, ok := attr(n, "data-series"); ok {
			series[name], _ = attr(n, "data-values")
		}
	})
	want := map[string]string{}
	for _, st := range res.Steps {
		for name, v := range map[string]int64{"replicas": int64(st.Replicas), "pending": st.Metrics.Pending,
			"pods used": int64(st.Metrics.PodsUsed), "moved": int64(st.Metrics.Moved)} {
			want[name] = strings.TrimSpace(want[name] + " " + fmt.Sprint(v))
		}
	}
	if diff := cmp.Diff(want, series); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}

func TestNaturalCompare(t *testing.T) {
	got := []string{"ns/src-10", "ns/src-5", "ns/src-1", "ns/a", "ns/src-05", "ns/src-100", "ns/src-b"}
	slices.SortFunc(got, naturalCompare)
	want := []string{"ns/a", "ns/src-1", "ns/src-5", "ns/src-05", "ns/src-10", "ns/src-100", "ns/src-b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("natural order (-want +got):\n%s", diff)
	}
}

// manySources is a scenario of n sources of one vreplica each, then a
// zone failure and its eviction at step 4 (the refresh period is longer
// than the advance: the loop does not run in it).
func manySources(n int) string {
	var b strings.Builder
	b.WriteString("version: 1\nname: many sources\ncluster:\n  zones: [zone-a, zone-b, zone-c]\n  nodesPerZone: 2\n")
	fmt.Fprintf(&b, "  statefulSet: {replicas: %d, capacity: 100}\nautoscaler: {unavailable-pod-grace: 1m, refresh-period: 10m}\nsteps:\n  - schedule:\n", n/80+1)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "      - {source: ns/src-%d, vreplicas: 1}\n", i)
	}
	b.WriteString("  - fail: {zone: zone-c}\n  - advance: 2m\n  - autoscale: {}\n")
	return b.String()
}

// renderMany renders the report of manySources(n).
func renderMany(t *testing.T, n int) (*Result, []byte) {
	t.Helper()
	s, ps := ParseScenario("many.yaml", []byte(manySources(n)))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return report(t, s, true)
}

// report runs the scenario and renders its report, with the explanations
// as -o html records them when explain is set.
func report(tb testing.TB, s *Scenario, explain bool) (*Result, []byte) {
	tb.Helper()
	return render(tb, s, Options{ExplainAll: explain}, WriteHTML)
}

// writePage writes a report into a file for the browser, and returns its
// URL.
func writePage(t *testing.T, page []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// TestHTMLManySources: with 2,000 sources the map keeps to what fits (40
// columns and one summing the rest), the table lists every source in
// natural order, and the filter box is there.
func TestHTMLManySources(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 sources: not in -short")
	}
	res, page := renderMany(t, 2000)
	doc := parsePage(t, page)
	sec := section(doc, 1)
	var cols, rows []string
	walk(sec, func(n *html.Node) {
		if n.Data == "text" && hasClass(n, "source") {
			k, _ := attr(n, "data-source")
			cols = append(cols, k)
		}
		if n.Data == "tr" {
			if k, ok := attr(n, "data-source"); ok {
				rows = append(rows, k)
			}
		}
	})
	if len(cols) != maxHTMLSources+1 || cols[len(cols)-1] != otherSources {
		t.Errorf("%d map columns, the last %q; want %d and the sum of the others", len(cols), cols[len(cols)-1], maxHTMLSources+1)
	}
	if len(rows) != 2000 || rows[0] != "ns/src-1" || rows[1] != "ns/src-2" || rows[9] != "ns/src-10" {
		t.Errorf("%d table rows, starting %v", len(rows), rows[:min(len(rows), 10)])
	}
	if !bytes.Contains(page, []byte(`<input id="filter" type="search" placeholder="filter the 2000 sources by name"`)) {
		t.Error("no filter box")
	}
	// Every row links its source's explanation, each decision is in the
	// page once, and the page stays a few megabytes (the explanations as
	// text would be 10 MB).
	if n := bytes.Count(page, []byte(`<details class="why" data-why=`)); n != 4*2000 {
		t.Errorf("%d rows link an explanation, want every row of the 4 steps: 8000", n)
	}
	if len(page) > 3<<20 {
		t.Errorf("the report is %d bytes, more than 3 MiB", len(page))
	}
	t.Logf("report of %d steps and 2,000 sources: %d bytes", len(res.Steps), len(page))
}

// reportWhy decodes the report's explanations' table: its strings, and
// its decisions as [key, where, ...].
func reportWhy(t *testing.T, page []byte) (strs []string, decisions [][]json.RawMessage) {
	t.Helper()
	m := regexp.MustCompile(`var why = (\{.*?\}), S = why\.s;`).FindSubmatch(page)
	if m == nil {
		t.Fatal("the report has no explanations' table")
	}
	var table struct {
		S []string
		D [][]json.RawMessage
	}
	if err := json.Unmarshal(m[1], &table); err != nil {
		t.Fatal(err)
	}
	return table.S, table.D
}

// TestHTMLExplanations: with ExplainAll each source's row links its most
// recent decision up to the step, and recording them changes no
// placement. (TestBrowserWhy checks the text the page makes of them.)
func TestHTMLExplanations(t *testing.T) {
	s := loadExample(t, "builtin.yaml")
	res, _, err := Run(context.Background(), s, Options{ExplainAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain := simulateJSON(t, s, Options{}); !bytes.Equal(plain, simulateJSON(t, s, Options{ExplainAll: true})) {
		t.Error("ExplainAll changed the result")
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, s, res); err != nil {
		t.Fatal(err)
	}
	strs, decisions := reportWhy(t, buf.Bytes())
	got := map[string]string{} // step/source -> the decision's source and where
	doc := parsePage(t, buf.Bytes())
	for _, step := range []int{1, 6, 10} {
		walk(section(doc, step), func(n *html.Node) {
			if d, ok := attr(n, "data-why"); ok {
				var i, key, where int
				fmt.Sscan(d, &i)
				_ = json.Unmarshal(decisions[i][0], &key)
				_ = json.Unmarshal(decisions[i][1], &where)
				src, _ := attr(n.Parent.Parent, "data-source")
				got[fmt.Sprintf("%d %s", step, src)] = strs[key] + ": " + strs[where]
			}
		})
	}
	// Every source's row in a section links the same step's decision:
	// the last one made by then.
	linked := map[int]string{
		1:  `step 1 "sources arrive"`,
		6:  `step 4 "the grace period passes; the autoscaler's loop evicts from the failed node"`,
		10: `step 9 "the stabilization window passes; the autoscaler's loop starts compacting"`,
	}
	want := map[string]string{}
	for step, decision := range linked {
		for _, src := range []string{"ops/alerts", "shop/audit", "shop/orders", "shop/payments"} {
			want[fmt.Sprintf("%d %s", step, src)] = src + ": " + decision
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the decisions the rows link (-want +got):\n%s", diff)
	}
}

// TestHTMLInitialState: a scenario starting from sources shows them before
// step 1, and step 1's changes are against them.
func TestHTMLInitialState(t *testing.T) {
	res, page := renderHTML(t, "snapshot.yaml")
	doc := parsePage(t, page)
	initial := section(doc, 0)
	if initial == nil || !hasClass(initial, "initial") {
		t.Fatal("no initial state section")
	}
	cells := 0
	walk(initial, func(n *html.Node) {
		if n.Data == "rect" && hasClass(n, "cell") {
			cells++
		}
		if n.Data == "h2" && text(n) != "Before step 1: initial state" {
			t.Errorf("heading %q", text(n))
		}
	})
	want := 0
	for _, ps := range res.Initial.Placements {
		want += len(ps)
	}
	if cells != want {
		t.Errorf("%d cells in the initial state, want %d", cells, want)
	}
	if !bytes.Contains(page, []byte(`querySelectorAll("section.step rect.cell")`)) {
		t.Error("the page's script would count the initial state's cells as a step's")
	}
}

// BenchmarkReportManySources times a report of 2,000 sources, from the
// scenario to the page, with and without the explanations (-o html
// records them), and reports its size:
//
//	go test ./internal/app/sim/ -run '^$' -bench ReportManySources -benchtime 3x
func BenchmarkReportManySources(b *testing.B) {
	s, ps := ParseScenario("many.yaml", []byte(manySources(2000)))
	if len(ps) > 0 {
		b.Fatal(ps)
	}
	for _, explain := range []bool{false, true} {
		b.Run(fmt.Sprintf("explained=%v", explain), func(b *testing.B) {
			var size int
			for b.Loop() {
				_, page := report(b, s, explain)
				size = len(page)
			}
			b.ReportMetric(float64(size), "bytes/report")
		})
	}
}

// TestHTMLConfiguration: the report's header says which ConfigMap came
// from where, and gives the run's warnings.
func TestHTMLConfiguration(t *testing.T) {
	s := loadExample(t, "schedule.yaml")
	res, _, err := Run(context.Background(), s, Options{ConfigMaps: loadConfigMapExamples(t, "config-autoscaler.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	res.Warnings = append(res.Warnings, "a warning")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, s, res); err != nil {
		t.Fatal(err)
	}
	var config, warnings []string
	walk(parsePage(t, buf.Bytes()), func(n *html.Node) {
		switch {
		case n.Data == "p" && hasClass(n, "config"):
			config = append(config, text(n))
		case n.Data == "p" && hasClass(n, "warning"):
			warnings = append(warnings, text(n))
		}
	})
	want := []string{"Configuration: " + DescribeConfiguration(res.Configuration)}
	if diff := cmp.Diff(want, config); diff != "" {
		t.Errorf("configuration (-want +got):\n%s", diff)
	}
	if !strings.Contains(want[0], "config-autoscaler (from examples/configmaps/config-autoscaler.yaml)") {
		t.Errorf("the configuration does not name the autoscaler's file: %s", want[0])
	}
	if diff := cmp.Diff([]string{"Warning: a warning"}, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
