package prometheus

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/internal/testkit/nettest"
	"github.com/vsched/vsched/internal/testkit/promtest"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/providertest"
)

// queryCounter counts the queries sent to the server.
type queryCounter struct{ n atomic.Int64 }

func (c *queryCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/api/v1/query") {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func target(ns, name, id string) signal.Target {
	return signal.Target{Key: types.NamespacedName{Namespace: ns, Name: name}, ID: id}
}

func newProvider(t *testing.T, cfg Config) *Provider {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFetchFromPrometheus runs a real Prometheus that scrapes two test
// exporters of per-source lag, and checks the exact samples of one query
// for every source, what is unknown, and the number of requests.
func TestFetchFromPrometheus(t *testing.T) {
	e1 := promtest.NewExporter("vsched_test_lag", "source")
	defer e1.Close()
	e2 := promtest.NewExporter("vsched_test_lag", "source")
	defer e2.Close()
	for id, v := range map[string]float64{"ns/a": 120, "ns/b": 0, "ns/nan": math.NaN(), "ns/neg": -3, "ns/dup": 4, "ns/gone": 9} {
		e1.Set(id, v)
	}
	e2.Set("ns/dup", 6)
	srv := promtest.Run(t, promtest.Options{Targets: []string{e1.Addr(), e2.Addr()}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := srv.WaitSeries(ctx, "vsched_test_lag", 7); err != nil {
		t.Fatal(err)
	}
	e1.Delete("ns/gone")
	if _, err := srv.WaitSeries(ctx, "vsched_test_lag", 6); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Truncate(time.Millisecond)
	targets := []signal.Target{
		target("ns", "a", ""), target("other", "b", "ns/b"), target("ns", "nan", ""), target("ns", "neg", ""),
		target("ns", "dup", ""), target("ns", "gone", ""), target("ns", "never", ""),
	}
	known := func(v float64) signal.Sample { return signal.Sample{Known: true, Value: v, At: at} }
	counter := &queryCounter{}
	cases := []struct {
		query string
		want  []signal.Sample
	}{
		{"vsched_test_lag", []signal.Sample{known(120), known(0), {}, {}, {}, {}, {}}},
		{"sum by (source) (vsched_test_lag)", []signal.Sample{known(120), known(0), {}, {}, known(10), {}, {}}},
	}
	for _, tc := range cases {
		p := newProvider(t, Config{Address: srv.URL, Query: tc.query, Label: "source", RoundTripper: counter, Now: func() time.Time { return at }})
		before := counter.n.Load()
		if diff := cmp.Diff(tc.want, providertest.Fetch(t, p, targets)); diff != "" {
			t.Errorf("%s: samples (-want +got):\n%s", tc.query, diff)
		}
		if n := counter.n.Load() - before; n != 1 {
			t.Errorf("%s: one Fetch for %d sources made %d queries, want 1", tc.query, len(targets), n)
		}
	}
	checkOneQueryPerSource(t, srv.URL, targets, counter)
}

// checkOneQueryPerSource counts what a design that asks once per source
// (KEDA's, one query per ScaledObject) makes for the same sources.
func checkOneQueryPerSource(t *testing.T, address string, targets []signal.Target, counter *queryCounter) {
	t.Helper()
	before := counter.n.Load()
	for _, tg := range targets {
		q := fmt.Sprintf(`vsched_test_lag{source=%q}`, tg.Key.String())
		providertest.Fetch(t, newProvider(t, Config{Address: address, Query: q, Label: "source", RoundTripper: counter}), []signal.Target{tg})
	}
	if n := counter.n.Load() - before; n != int64(len(targets)) {
		t.Errorf("one query per source for %d sources made %d queries, want %d", len(targets), n, len(targets))
	}
	t.Logf("%d sources: one Fetch made 1 query; one query per source made %d", len(targets), counter.n.Load()-before)
}

// TestFetchErrors checks that a query the server rejects, a query that is
// not a vector, a server that is down and one that never answers fail the
// whole round, every sample unknown, and return when ctx ends.
func TestFetchErrors(t *testing.T) {
	e := promtest.NewExporter("vsched_test_lag", "source")
	defer e.Close()
	srv := promtest.Run(t, promtest.Options{Targets: []string{e.Addr()}})
	cases := []struct{ name, address, query, want string }{
		{"bad query", srv.URL, "sum(", "bad_data"},
		{"a scalar", srv.URL, "1", "returned a scalar"},
		{"server down", "http://" + nettest.Refused(t), "up", "connection refused"},
		{"server silent", "http://" + nettest.Silent(t), "up", "context deadline exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, Config{Address: tc.address, Query: tc.query, Label: "source"})
			providertest.FailedRound(t, p, target("ns", "a", ""), 2*time.Second, 8*time.Second, tc.want)
		})
	}
}

func TestNewErrors(t *testing.T) {
	ok := Config{Address: "http://127.0.0.1:9090", Query: "up", Label: "source"}
	cases := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Address = "" }, "Config.Address: required"},
		{func(c *Config) { c.Address = "127.0.0.1:9090" }, "Config.Address: "},
		{func(c *Config) { c.Address = "ftp://h" }, `Config.Address: "ftp://h" is not an http:// or https:// URL`},
		{func(c *Config) { c.Query = "" }, "Config.Query: required"},
		{func(c *Config) { c.Label = "0x" }, `Config.Label: "0x" is not a label name`},
		{func(c *Config) { c.Label = "" }, `Config.Label: "" is not a label name`},
	}
	for _, tc := range cases {
		cfg := ok
		tc.edit(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", cfg, err, tc.want)
		}
	}
	p, err := New(ok)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Fetch(context.Background(), []signal.Target{target("ns", "a", "")}, nil); err == nil {
		t.Error("Fetch with fewer samples than targets returned no error")
	}
}
