package controller

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, _ := io.ReadAll(rec.Body)
	return rec.Code, string(body)
}

// TestMetricsServer: the probes answer, readiness follows the scheduler's
// informers, and an OpenTelemetry counter recorded through the server's
// provider is on /metrics under its Prometheus name.
func TestMetricsServer(t *testing.T) {
	m, err := newMetricsServer()
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, m.mux, PathHealthz); code != http.StatusOK {
		t.Errorf("%s = %d; want 200", PathHealthz, code)
	}
	if code, _ := get(t, m.mux, PathReadyz); code != http.StatusServiceUnavailable {
		t.Errorf("%s before the scheduler exists = %d; want 503", PathReadyz, code)
	}
	synced := false
	ready := func() bool { return synced }
	m.ready.Store(&ready)
	if code, _ := get(t, m.mux, PathReadyz); code != http.StatusServiceUnavailable {
		t.Errorf("%s before the informers synced = %d; want 503", PathReadyz, code)
	}
	synced = true
	if code, _ := get(t, m.mux, PathReadyz); code != http.StatusOK {
		t.Errorf("%s once synced = %d; want 200", PathReadyz, code)
	}
	c, err := m.meterProvider().Meter("test").Int64Counter("vsched.scheduler.moved_vreplicas")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 3)
	code, body := get(t, m.mux, PathMetrics)
	if code != http.StatusOK || !strings.Contains(body, "\nvsched_scheduler_moved_vreplicas_total{") {
		t.Errorf("%s = %d:\n%s\nwant vsched_scheduler_moved_vreplicas_total", PathMetrics, code, body)
	}
}
