package prometheus_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/prometheus"
)

// A stand-in for Prometheus answers the query with two sources' lag; the
// third source has no series.
func ExampleProvider() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[
			{"metric":{"source":"shop/orders"},"value":[1764244800,"120"]},
			{"metric":{"source":"shop/refunds"},"value":[1764244800,"0"]}]}}`)
	}))
	defer srv.Close()

	p, err := prometheus.New(prometheus.Config{
		Address: srv.URL,
		Query:   `sum by (source) (kafka_consumergroup_lag)`,
		Label:   "source",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	targets := []signal.Target{
		{Key: types.NamespacedName{Namespace: "shop", Name: "orders"}},
		{Key: types.NamespacedName{Namespace: "shop", Name: "refunds"}},
		{Key: types.NamespacedName{Namespace: "shop", Name: "new"}},
	}
	out := make([]signal.Sample, len(targets))
	if err := p.Fetch(context.Background(), targets, out); err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range out {
		fmt.Printf("%s: known=%t value=%v\n", targets[i].Key, s.Known, s.Value)
	}
	// Output:
	// shop/orders: known=true value=120
	// shop/refunds: known=true value=0
	// shop/new: known=false value=0
}
