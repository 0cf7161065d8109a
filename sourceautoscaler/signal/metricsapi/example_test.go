package metricsapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"

	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/metricsapi"
)

// A stand-in for KEDA's metrics server or prometheus-adapter serves the
// external metric kafka_lag with a series per source, labelled source.
func ExampleExternal() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"ExternalMetricValueList","apiVersion":"external.metrics.k8s.io/v1beta1","metadata":{},"items":[
			{"metricName":"kafka_lag","metricLabels":{"source":"shop/orders"},"timestamp":"2026-11-27T12:00:00Z","value":"120"}]}`)
	}))
	defer srv.Close()

	client, err := externalclient.NewForConfig(&rest.Config{Host: srv.URL, Timeout: 10 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := metricsapi.NewExternal(metricsapi.ExternalConfig{
		Client: client, Namespace: "shop", Metric: "kafka_lag",
		Selector: labels.SelectorFromSet(labels.Set{"topic": "orders"}), Label: "source",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	targets := []signal.Target{
		{Key: types.NamespacedName{Namespace: "shop", Name: "orders"}},
		{Key: types.NamespacedName{Namespace: "shop", Name: "new"}},
	}
	out := make([]signal.Sample, len(targets))
	if err := p.Fetch(context.Background(), targets, out); err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range out {
		fmt.Printf("%s: known=%t value=%v at=%s\n", targets[i].Key, s.Known, s.Value, s.At.UTC().Format(time.RFC3339))
	}
	// Output:
	// shop/orders: known=true value=120 at=2026-11-27T12:00:00Z
	// shop/new: known=false value=0 at=0001-01-01T00:00:00Z
}
