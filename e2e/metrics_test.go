//go:build e2e

package e2e

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/vsched/vsched/e2e/harness"
)

// scrape reads the controller's /metrics and returns the sum of the
// samples of the metric name (its Prometheus name) whose labels include
// every one of labels (`reason="lost_node"`), and whether any matched.
func (e *env) scrape(c *harness.Controller, name string, labels ...string) (float64, bool) {
	e.t.Helper()
	url := c.MetricsURL()
	if url == "" {
		e.t.Fatalf("%s has not logged where its metrics listen", c.Name)
	}
	resp, err := http.Get(url)
	if err != nil {
		e.t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		e.t.Fatalf("scraping %s: %d %v", url, resp.StatusCode, err)
	}
	var sum float64
	found := false
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		if !hasLabels(line, labels) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			e.t.Fatalf("%s: %q: %v", url, line, err)
		}
		sum, found = sum+v, true
	}
	return sum, found
}

func hasLabels(line string, labels []string) bool {
	for _, l := range labels {
		if !strings.Contains(line, l) {
			return false
		}
	}
	return true
}
