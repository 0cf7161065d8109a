package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

func TestSignalFlags(t *testing.T) {
	const q = "max by (source) (lag)"
	for _, tc := range []struct {
		name     string
		flags    signalFlags
		provider string // "": none
		err      string
	}{
		{name: "off", flags: signalFlags{label: DefaultSignalLabel}},
		{name: "prometheus", flags: signalFlags{prometheusURL: "http://127.0.0.1:9090", query: q, label: DefaultSignalLabel}, provider: "prometheus"},
		{name: "query without a server", flags: signalFlags{query: q, label: DefaultSignalLabel}, err: "--signal-query needs --prometheus-url"},
		{name: "server without a query", flags: signalFlags{prometheusURL: "http://127.0.0.1:9090", label: DefaultSignalLabel}, err: "--prometheus-url needs --signal-query"},
		{name: "not a URL", flags: signalFlags{prometheusURL: "127.0.0.1:9090", query: q, label: DefaultSignalLabel}, err: "Config.Address"},
		{name: "bad label", flags: signalFlags{prometheusURL: "http://127.0.0.1:9090", query: q, label: "source-name"}, err: `Config.Label: "source-name" is not a label name`},
		{name: "external", flags: signalFlags{external: "lag", label: DefaultSignalLabel, sourceNamespace: "apps"}, provider: "external-metrics"},
		{name: "external, metrics namespace", flags: signalFlags{external: "lag", label: DefaultSignalLabel, metricsNamespace: "keda"}, provider: "external-metrics"},
		{name: "external without a namespace", flags: signalFlags{external: "lag", label: DefaultSignalLabel}, err: "need --metrics-namespace (or --source-namespace)"},
		{name: "external without a label", flags: signalFlags{external: "lag", sourceNamespace: "apps"}, err: "ExternalConfig.Label: required"},
		{name: "custom", flags: signalFlags{custom: "lag", label: DefaultSignalLabel, sourceNamespace: "apps", metricSelector: "topic=orders"}, provider: "custom-metrics"},
		{name: "bad selector", flags: signalFlags{custom: "lag", label: DefaultSignalLabel, sourceNamespace: "apps", metricSelector: "topic in (orders"}, err: "--metric-selector:"},
		{name: "two providers", flags: signalFlags{prometheusURL: "http://127.0.0.1:9090", query: q, external: "lag", label: DefaultSignalLabel, sourceNamespace: "apps"}, err: "[--prometheus-url --external-metric]: give one signal provider"},
		{name: "metrics namespace alone", flags: signalFlags{label: DefaultSignalLabel, metricsNamespace: "keda"}, err: "--metrics-namespace and --metric-selector need --external-metric or --custom-metric"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := tc.flags.providers(&rest.Config{Host: "http://127.0.0.1:1"})
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("providers: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("providers: error %v; want one containing %q", err, tc.err)
			}
			var names []string
			for _, p := range ps {
				names = append(names, p.Name())
			}
			var want []string
			if tc.provider != "" {
				want = []string{tc.provider}
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("providers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExternalMetricFlags: --external-metric, --metrics-namespace,
// --metric-selector and --signal-label reach the external metrics API as
// one List in that namespace with that selector, and its series map to
// the sources by that label.
func TestExternalMetricFlags(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+"?"+r.URL.Query().Get("labelSelector"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"ExternalMetricValueList","apiVersion":"external.metrics.k8s.io/v1beta1","metadata":{},"items":[
			{"metricName":"lag","metricLabels":{"by":"apps/a","topic":"orders"},"timestamp":"2026-01-01T00:00:00Z","value":"120"}]}`))
	}))
	defer srv.Close()
	f := signalFlags{external: "lag", label: "by", metricsNamespace: "keda", metricSelector: "topic=orders", sourceNamespace: "apps"}
	ps, err := f.providers(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	targets := []signal.Target{{Key: types.NamespacedName{Namespace: "apps", Name: "a"}}, {Key: types.NamespacedName{Namespace: "apps", Name: "b"}}}
	out := make([]signal.Sample, len(targets))
	if err := ps[0].Fetch(ctx, targets, out); err != nil {
		t.Fatal(err)
	}
	if !out[0].Known || out[0].Value != 120 || out[1].Known {
		t.Errorf("samples %+v; want apps/a 120 and apps/b unknown", out)
	}
	if diff := cmp.Diff([]string{"/apis/external.metrics.k8s.io/v1beta1/namespaces/keda/lag?topic=orders"}, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
