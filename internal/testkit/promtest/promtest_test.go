package promtest

import (
	"context"
	"io"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestServerScrapesExporter starts a real server on an exporter, reads the
// exporter's values back, and checks an outage: stopped, queries fail;
// started again, the same port answers with the data it kept.
func TestServerScrapesExporter(t *testing.T) {
	e := NewExporter("vsched_test_lag", "source")
	defer e.Close()
	e.Set("ns/a", 120)
	e.Set(`ns/"b"`, 0.5)
	s := Run(t, Options{Targets: []string{e.Addr()}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	vec, err := s.WaitSeries(ctx, "vsched_test_lag", 2)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, smp := range vec {
		got[string(smp.Metric["source"])] = float64(smp.Value)
	}
	if diff := cmp.Diff(map[string]float64{"ns/a": 120, `ns/"b"`: 0.5}, got); diff != "" {
		t.Errorf("scraped values (-want +got):\n%s", diff)
	}

	s.Stop()
	if _, err := s.Query(ctx, "vsched_test_lag"); err == nil {
		t.Error("a query to a stopped server succeeded")
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitScrapes(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitSeries(ctx, "vsched_test_lag", 2); err != nil {
		t.Fatal(err)
	}
	e.Set("ns/a", 200)
	if err := s.WaitValue(ctx, "vsched_test_lag", "source", "ns/a", 200); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, time.Second)
	defer cancelShort()
	if err := s.WaitValue(short, "vsched_test_lag", "source", "ns/a", 7); err == nil {
		t.Error("WaitValue for a value never exported returned no error")
	}
}

func TestExporterFormat(t *testing.T) {
	e := NewExporter("lag", "source")
	defer e.Close()
	e.Set("b", 2)
	e.Set("a\\\n", math.Inf(1))
	e.Set("c", 3)
	e.Delete("c")
	resp, err := http.Get(e.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := "# TYPE lag gauge\nlag{source=\"a\\\\\\n\"} +Inf\nlag{source=\"b\"} 2\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("exposition (-want +got):\n%s", diff)
	}
	if e.Scrapes() != 1 {
		t.Errorf("Scrapes() = %d, want 1", e.Scrapes())
	}
}

// TestLookbackDelta checks that a series no scrape has refreshed since a
// restart (its exporter gone, so no staleness marker) leaves the results
// after LookbackDelta, not Prometheus's default 5m.
func TestLookbackDelta(t *testing.T) {
	e := NewExporter("vsched_test_lag", "source")
	e.Set("ns/a", 1)
	s := Run(t, Options{Targets: []string{e.Addr()}, LookbackDelta: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.WaitSeries(ctx, "vsched_test_lag", 1); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	e.Close()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if vec, err := s.Query(ctx, "vsched_test_lag"); err != nil || len(vec) != 0 {
		t.Errorf("1.5s after a restart with a 1s lookback: %v, %v; want no series", vec, err)
	}
}
