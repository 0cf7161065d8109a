//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vsched/vsched/e2e/harness"
	"github.com/vsched/vsched/internal/testkit/monitoring"
	"github.com/vsched/vsched/internal/testkit/promtest"
)

// TestPrometheusQueries starts a real Prometheus that scrapes the sample
// controller and loads deploy/monitoring's rules, places sources, and
// checks that every dashboard query and every metric an alert names
// returns series, except exactly those over metrics the controller's
// /metrics does not show: counters it has not counted yet (a counter
// appears once it counts; nothing moves in this run) and the source
// autoscaler's gauges (the sample controller binary is given no signal
// provider, so it does not run the source autoscaler, whose gauges observe
// only sources it decided); and that every rule group evaluates without
// error. Without Debian's prometheus the test skips,
// except under CI=true.
func TestPrometheusQueries(t *testing.T) {
	bin := promtest.RequireBinary(t)
	e := newEnv(t, 5*time.Minute, 1)
	e.placeSources(12, 6, 7)
	target, exported := controllerMetrics(t, e.ctrls[0])
	prom := startPrometheus(t, bin, target)
	e.mark("prometheus started")
	waitSeries(t, prom, `vsched_scheduler_decisions_total{job="sample-controller"}`)
	// Two scrapes at least, for rate().
	waitSeries(t, prom, `count_over_time(vsched_scheduler_pending_vreplicas[1m]) >= 3`)
	e.mark("prometheus scraped the controller")

	queries := dashboardQueries(t)
	for _, r := range alertRules(t) {
		for _, n := range monitoring.MetricNames(r.Expr) {
			queries["alert "+r.Alert+": "+n] = n
		}
	}
	keys := make([]string, 0, len(queries))
	for k := range queries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, where := range keys {
		q := queries[where]
		absent := false
		for _, n := range monitoring.MetricNames(q) {
			absent = absent || !exported[n]
		}
		n := len(query(t, prom, q))
		switch {
		case absent && n > 0:
			t.Errorf("%s: %d series, but it names a metric the controller does not export yet: %s", where, n, q)
		case !absent && n == 0:
			t.Errorf("%s: no series from Prometheus: %s", where, q)
		case absent:
			t.Logf("%s: no series, as the controller's /metrics does not show its metric (yet)", where)
		}
	}
	checkRuleHealth(t, prom)
	e.mark("every query checked")
}

// controllerMetrics is the controller's metrics address and the metric
// names it exports now.
func controllerMetrics(t *testing.T, c *harness.Controller) (string, map[string]bool) {
	t.Helper()
	u, err := url.Parse(c.MetricsURL())
	if err != nil || u.Host == "" {
		t.Fatalf("the controller's metrics address: %q %v", c.MetricsURL(), err)
	}
	resp, err := http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		names[line[:strings.IndexAny(line, "{ ")]] = true
	}
	_, port, _ := net.SplitHostPort(u.Host)
	return "127.0.0.1:" + port, names
}

// startPrometheus runs Prometheus on a free port, scraping target every
// second and evaluating the rules every second; it stops with the test.
func startPrometheus(t *testing.T, bin, target string) string {
	t.Helper()
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	rules := filepath.Join(harness.RepoRoot(), "deploy", "monitoring", "vsched-rules.yaml")
	cfg := fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: [%q]\n"+
		"scrape_configs:\n  - job_name: sample-controller\n    static_configs: [{targets: [%q]}]\n", rules, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("prometheus log:\n%s", out)
		}
	})
	return "http://" + addr
}

type promResponse struct {
	Status string          `json:"status"`
	Error  string          `json:"error"`
	Data   json.RawMessage `json:"data"`
}

func promGet(prom, path string, params url.Values) (json.RawMessage, error) {
	resp, err := http.Get(prom + path + "?" + params.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r promResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	return r.Data, nil
}

// query runs an instant query, Grafana's variables filled in, and returns
// its series.
func query(t *testing.T, prom, q string) []json.RawMessage {
	t.Helper()
	q = strings.NewReplacer("$__rate_interval", "1m", "$namespace", ".*", "$statefulset", ".*", "$source_namespace", ".*").Replace(q)
	data, err := promGet(prom, "/api/v1/query", url.Values{"query": {q}})
	if err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	var v struct {
		Result []json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v.Result
}

// waitSeries waits until q returns series (Prometheus up and scraping).
func waitSeries(t *testing.T, prom, q string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if data, err := promGet(prom, "/api/v1/query", url.Values{"query": {q}}); err == nil && !strings.Contains(string(data), `"result":[]`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no series for %s after a minute", q)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkRuleHealth: Prometheus loaded every rule group and evaluates each
// rule without error.
func checkRuleHealth(t *testing.T, prom string) {
	t.Helper()
	data, err := promGet(prom, "/api/v1/rules", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Groups []struct {
			Name  string
			Rules []struct{ Name, Health, LastError string }
		}
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range v.Groups {
		for _, r := range g.Rules {
			n++
			if r.Health == "err" {
				t.Errorf("rule %s/%s: %s", g.Name, r.Name, r.LastError)
			}
		}
	}
	if want := len(alertRules(t)); n != want {
		t.Errorf("Prometheus loaded %d rules; the rules file has %d", n, want)
	}
}

func alertRules(t *testing.T) []monitoring.Rule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "deploy", "monitoring", "vsched-rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := monitoring.ParseRules(data)
	if err != nil {
		t.Fatal(err)
	}
	return f.Alerts()
}

// dashboardQueries are the dashboard's panel queries, by panel and target.
func dashboardQueries(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "deploy", "monitoring", "vsched-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string
			}
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out[fmt.Sprintf("panel %q %s", p.Title, tg.RefID)] = tg.Expr
		}
	}
	return out
}
