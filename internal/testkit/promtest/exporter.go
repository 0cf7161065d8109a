package promtest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Exporter serves one gauge with a value per source, in the Prometheus
// text format, at /metrics: Metric{Label="<id>"} <value>. Sources are
// written in order of their ids.
type Exporter struct {
	Metric, Label string

	srv *httptest.Server

	mu     sync.Mutex
	values map[string]float64
	scrape int
}

// NewExporter starts an exporter on a free loopback port; Close stops it.
func NewExporter(metric, label string) *Exporter {
	e := &Exporter{Metric: metric, Label: label, values: map[string]float64{}}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	return e
}

// Addr is the exporter's host:port, a scrape target.
func (e *Exporter) Addr() string { return strings.TrimPrefix(e.srv.URL, "http://") }

// Close stops serving; a Prometheus that scrapes it then marks its series
// stale.
func (e *Exporter) Close() { e.srv.Close() }

// Set sets a source's value, adding the source if it is new.
func (e *Exporter) Set(id string, v float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.values[id] = v
}

// Delete removes a source: its series ends at the next scrape.
func (e *Exporter) Delete(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.values, id)
}

// Scrapes counts the scrapes served so far.
func (e *Exporter) Scrapes() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.scrape
}

// WaitScrapes waits until the exporter has served n more scrapes, or ctx
// ends. A restarted server answers from its TSDB before it scrapes again
// (its discovery takes up to 5s): a test that changes the exporter after a
// restart waits for a scrape first.
func (e *Exporter) WaitScrapes(ctx context.Context, n int) error {
	want := e.Scrapes() + n
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for e.Scrapes() < want {
		select {
		case <-ctx.Done():
			return fmt.Errorf("promtest: waiting for %d scrapes of %s: %w", n, e.Addr(), ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

func (e *Exporter) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metrics" {
		http.NotFound(w, r)
		return
	}
	e.mu.Lock()
	e.scrape++
	ids := make([]string, 0, len(e.values))
	for id := range e.values {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	fmt.Fprintf(&b, "# TYPE %s gauge\n", e.Metric)
	for _, id := range ids {
		fmt.Fprintf(&b, "%s{%s=\"%s\"} %s\n", e.Metric, e.Label, escapeLabel(id), strconv.FormatFloat(e.values[id], 'g', -1, 64))
	}
	e.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	_, _ = w.Write([]byte(b.String()))
}

// escapeLabel escapes a label value as the text format requires.
func escapeLabel(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}
