package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/pkg/logging"
)

// Paths the metrics listener serves.
const (
	PathMetrics = "/metrics" // every vsched metric, in Prometheus' format
	PathHealthz = "/healthz" // liveness: the process serves
	PathReadyz  = "/readyz"  // readiness: the scheduler's informers have synced and its StatefulSet exists
)

// metricsServer exports the scheduler's and the autoscaler's OpenTelemetry
// metrics on a Prometheus endpoint of its own registry (the library stays
// on the OpenTelemetry API; only this command knows Prometheus), with the
// probes beside it.
type metricsServer struct {
	provider *sdkmetric.MeterProvider
	mux      *http.ServeMux
	// notReady is set once the scheduler exists, while the probes may be
	// served already: it says why the scheduler cannot decide, naming its
	// StatefulSet, "" when it can.
	notReady atomic.Pointer[func() string]
}

func newMetricsServer() (*metricsServer, error) {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	m := &metricsServer{provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter)), mux: http.NewServeMux()}
	m.mux.Handle(PathMetrics, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	m.mux.HandleFunc(PathHealthz, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	m.mux.HandleFunc(PathReadyz, func(w http.ResponseWriter, _ *http.Request) {
		f := m.notReady.Load()
		if f == nil {
			http.Error(w, "the scheduler is not built yet", http.StatusServiceUnavailable)
			return
		}
		if why := (*f)(); why != "" {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	return m, nil
}

func (m *metricsServer) meterProvider() metric.MeterProvider { return m.provider }

// LogMetricsListening is logged once the listener is bound, with "address".
const LogMetricsListening = "metrics and probes listening"

// serve listens on addr until ctx is done.
func (m *metricsServer) serve(ctx context.Context, addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: m.mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = m.provider.Shutdown(sctx)
	}()
	logging.FromContext(ctx).Infow(LogMetricsListening, "address", l.Addr().String())
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logging.FromContext(ctx).Errorw("metrics listener stopped", "error", err)
		}
	}()
	return nil
}

// readiness is the readiness probe's answer for the StatefulSet set: why
// the scheduler cannot decide, "" when it can. A missing StatefulSet says
// so (missing names it), so that an operator sees which one holds the
// sources.
func readiness(set types.NamespacedName, synced bool, missing string) string {
	switch {
	case !synced:
		return fmt.Sprintf("StatefulSet %s: the scheduler's informers have not synced", set)
	case missing != "":
		return missing
	}
	return ""
}
