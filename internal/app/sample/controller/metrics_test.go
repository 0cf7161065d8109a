package controller

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
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
	set := types.NamespacedName{Namespace: "vsched-sample", Name: "sample-adapter"}
	synced, missing := false, ""
	notReady := func() string { return readiness(set, synced, missing) }
	m.notReady.Store(&notReady)
	for _, step := range []struct {
		name     string
		synced   bool
		missing  string
		code     int
		wantBody string
	}{
		{"before the informers synced", false, "", http.StatusServiceUnavailable,
			"StatefulSet vsched-sample/sample-adapter: the scheduler's informers have not synced\n"},
		{"once synced", true, "", http.StatusOK, ""},
		{"while the StatefulSet is deleted", true, "StatefulSet vsched-sample/sample-adapter was deleted at 2025-01-01T00:00:00Z", http.StatusServiceUnavailable,
			"StatefulSet vsched-sample/sample-adapter was deleted at 2025-01-01T00:00:00Z\n"},
		{"once it is back", true, "", http.StatusOK, ""},
	} {
		synced, missing = step.synced, step.missing
		if code, body := get(t, m.mux, PathReadyz); code != step.code || body != step.wantBody {
			t.Errorf("%s %s = %d %q; want %d %q", PathReadyz, step.name, code, body, step.code, step.wantBody)
		}
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
