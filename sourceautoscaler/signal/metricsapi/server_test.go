package metricsapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"
)

// metricsServer answers the aggregated external and custom metrics APIs
// as KEDA's metrics server or prometheus-adapter would, from canned JSON
// bodies by path, and records every request.
type metricsServer struct {
	*httptest.Server

	mu       sync.Mutex
	bodies   map[string]string // path -> JSON body
	status   int               // when not zero, every answer has it
	requests []string          // path?query of each request
}

func newMetricsServer(t *testing.T, bodies map[string]string) *metricsServer {
	t.Helper()
	m := &metricsServer{bodies: bodies}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

func (m *metricsServer) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.requests = append(m.requests, r.URL.Path+"?"+r.URL.RawQuery)
	body, ok := m.bodies[r.URL.Path]
	status := m.status
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case status != 0:
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"adapter failing","code":500}`))
	case !ok:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","message":"the server could not find the requested resource","code":404}`))
	default:
		_, _ = w.Write([]byte(body))
	}
}

// take returns the requests so far, and forgets them.
func (m *metricsServer) take() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.requests
	m.requests = nil
	return r
}

func restConfig(url string) *rest.Config {
	return &rest.Config{Host: url, Timeout: 30 * time.Second}
}

func externalClient(t *testing.T, url string) externalclient.ExternalMetricsClient {
	t.Helper()
	c, err := externalclient.NewForConfig(restConfig(url))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sampleSource is the sample controller's source kind.
var sampleSource = schema.GroupVersionKind{Group: "samples.vsched.dev", Version: "v1alpha1", Kind: "SampleSource"}

func customClient(t *testing.T, url string) customclient.CustomMetricsClient {
	t.Helper()
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{sampleSource.GroupVersion()})
	mapper.Add(sampleSource, meta.RESTScopeNamespace)
	c, err := customclient.NewForVersionForConfig(restConfig(url), mapper, v1beta2.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// externalList is an ExternalMetricValueList of items given as
// {labels, value}.
func externalList(t *testing.T, metric string, at time.Time, items ...externalItem) string {
	t.Helper()
	var parts []string
	for _, it := range items {
		b, err := json.Marshal(map[string]any{
			"metricName": metric, "metricLabels": it.labels, "timestamp": at.Format(time.RFC3339), "value": it.value,
		})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, string(b))
	}
	return `{"kind":"ExternalMetricValueList","apiVersion":"external.metrics.k8s.io/v1beta1","metadata":{},"items":[` + strings.Join(parts, ",") + `]}`
}

type externalItem struct {
	labels map[string]string
	value  string
}

// customList is a v1beta2 MetricValueList of SampleSources given as
// {namespace, name, value}.
func customList(t *testing.T, metric string, at time.Time, items ...[3]string) string {
	t.Helper()
	var parts []string
	for _, it := range items {
		b, err := json.Marshal(map[string]any{
			"describedObject": map[string]string{"kind": sampleSource.Kind, "apiVersion": sampleSource.GroupVersion().String(), "namespace": it[0], "name": it[1]},
			"metric":          map[string]any{"name": metric},
			"timestamp":       at.Format(time.RFC3339),
			"value":           it[2],
		})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, string(b))
	}
	return `{"kind":"MetricValueList","apiVersion":"custom.metrics.k8s.io/v1beta2","metadata":{},"items":[` + strings.Join(parts, ",") + `]}`
}
