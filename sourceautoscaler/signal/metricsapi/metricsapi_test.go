package metricsapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/internal/testkit/nettest"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/providertest"
)

const (
	externalPath = "/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/kafka_lag"
	customPath   = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/samplesources.samples.vsched.dev/*/lag"
)

var at = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func target(ns, name, id string) signal.Target {
	return signal.Target{Key: types.NamespacedName{Namespace: ns, Name: name}, ID: id}
}

func known(v float64) signal.Sample { return signal.Sample{Known: true, Value: v, At: at} }

// TestExternal checks one List against a server answering the external
// metrics API: exact samples, what is unknown, the request it made, and
// what one List per source (as KEDA asks per ScaledObject) makes.
func TestExternal(t *testing.T) {
	src := func(id string) map[string]string { return map[string]string{"source": id, "topic": "orders"} }
	srv := newMetricsServer(t, map[string]string{externalPath: externalList(t, "kafka_lag", at,
		externalItem{src("shop/orders"), "120"}, externalItem{src("shop/refunds"), "0"},
		externalItem{src("shop/milli"), "1500m"}, externalItem{src("shop/neg"), "-1"},
		externalItem{src("shop/dup"), "1"}, externalItem{src("shop/dup"), "2"},
		externalItem{map[string]string{"topic": "orders"}, "99"},
	)})
	p, err := NewExternal(ExternalConfig{
		Client: externalClient(t, srv.URL), Namespace: "shop", Metric: "kafka_lag",
		Selector: labels.SelectorFromSet(labels.Set{"topic": "orders"}), Label: "source",
	})
	if err != nil {
		t.Fatal(err)
	}
	targets := []signal.Target{
		target("shop", "orders", ""), target("other", "x", "shop/refunds"), target("shop", "milli", ""),
		target("shop", "neg", ""), target("shop", "dup", ""), target("shop", "missing", ""),
	}
	want := []signal.Sample{known(120), known(0), known(1.5), {}, {}, {}}
	if diff := cmp.Diff(want, providertest.Fetch(t, p, targets)); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{externalPath + "?labelSelector=topic%3Dorders&timeout=30s"}, srv.take()); diff != "" {
		t.Errorf("requests of one Fetch for %d sources (-want +got):\n%s", len(targets), diff)
	}

	for _, tg := range targets {
		providertest.Fetch(t, p, []signal.Target{tg})
	}
	perSource := len(srv.take())
	if perSource != len(targets) {
		t.Errorf("one List per source for %d sources made %d requests", len(targets), perSource)
	}
	t.Logf("%d sources: one Fetch made 1 request; one List per source made %d", len(targets), perSource)
}

// TestCustom checks one request for the metric of every SampleSource the
// selector matches: exact samples, what is unknown, and the request.
func TestCustom(t *testing.T) {
	srv := newMetricsServer(t, map[string]string{customPath: customList(t, "lag", at,
		[3]string{"shop", "orders", "7"}, [3]string{"shop", "refunds", "250m"}, [3]string{"", "nons", "3"},
		[3]string{"shop", "dup", "1"}, [3]string{"shop", "dup", "1"},
	)})
	p, err := NewCustom(CustomConfig{
		Client: customClient(t, srv.URL), Namespace: "shop",
		Kind:     schema.GroupKind{Group: sampleSource.Group, Kind: sampleSource.Kind},
		Selector: labels.SelectorFromSet(labels.Set{"app": "vsched"}), Metric: "lag",
	})
	if err != nil {
		t.Fatal(err)
	}
	targets := []signal.Target{
		target("shop", "orders", ""), target("x", "y", "shop/refunds"), target("shop", "nons", ""),
		target("other", "orders", ""), target("shop", "dup", ""), target("shop", "missing", ""),
	}
	want := []signal.Sample{known(7), known(0.25), known(3), {}, {}, {}}
	if diff := cmp.Diff(want, providertest.Fetch(t, p, targets)); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{customPath + "?labelSelector=app%3Dvsched&timeout=30s"}, srv.take()); diff != "" {
		t.Errorf("requests of one Fetch for %d sources (-want +got):\n%s", len(targets), diff)
	}
}

// TestFetchErrors checks that an adapter that fails, a metric it does not
// serve and one that never answers fail the whole round, every sample
// unknown, and return when ctx ends.
func TestFetchErrors(t *testing.T) {
	failing := newMetricsServer(t, nil)
	failing.status = http.StatusInternalServerError
	empty := newMetricsServer(t, nil)
	silent := "http://" + nettest.Silent(t)
	providers := func(url string) []signal.Provider {
		e, err1 := NewExternal(ExternalConfig{Client: externalClient(t, url), Namespace: "shop", Metric: "kafka_lag", Label: "source"})
		c, err2 := NewCustom(CustomConfig{Client: customClient(t, url), Namespace: "shop", Kind: sampleSource.GroupKind(), Metric: "lag"})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		return []signal.Provider{e, c}
	}
	cases := []struct{ name, url, want string }{
		{"adapter failing", failing.URL, "adapter failing"},
		{"metric not served", empty.URL, "could not find the requested resource"},
		{"adapter silent", silent, "context deadline exceeded"},
	}
	for _, tc := range cases {
		for _, p := range providers(tc.url) {
			t.Run(fmt.Sprintf("%s/%s", tc.name, p.Name()), func(t *testing.T) {
				providertest.FailedRound(t, p, target("shop", "orders", ""), 300*time.Millisecond, 5*time.Second, tc.want)
			})
		}
	}
}

func TestNewErrors(t *testing.T) {
	ext := externalClient(t, "http://127.0.0.1:1")
	cust := customClient(t, "http://127.0.0.1:1")
	okExt := ExternalConfig{Client: ext, Namespace: "shop", Metric: "m", Label: "source"}
	okCust := CustomConfig{Client: cust, Namespace: "shop", Kind: sampleSource.GroupKind(), Metric: "m"}
	cases := []struct {
		new  func() error
		want string
	}{
		{func() error { c := okExt; c.Client = nil; _, err := NewExternal(c); return err }, "ExternalConfig.Client: required"},
		{func() error { c := okExt; c.Namespace = ""; _, err := NewExternal(c); return err }, "ExternalConfig.Namespace: required"},
		{func() error { c := okExt; c.Metric = ""; _, err := NewExternal(c); return err }, "ExternalConfig.Metric: required"},
		{func() error { c := okExt; c.Label = ""; _, err := NewExternal(c); return err }, "ExternalConfig.Label: required"},
		{func() error { c := okCust; c.Client = nil; _, err := NewCustom(c); return err }, "CustomConfig.Client: required"},
		{func() error { c := okCust; c.Namespace = ""; _, err := NewCustom(c); return err }, "CustomConfig.Namespace: required"},
		{func() error { c := okCust; c.Kind = schema.GroupKind{}; _, err := NewCustom(c); return err }, "CustomConfig.Kind.Kind: required"},
		{func() error { c := okCust; c.Metric = ""; _, err := NewCustom(c); return err }, "CustomConfig.Metric: required"},
	}
	for _, tc := range cases {
		if err := tc.new(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
	e, _ := NewExternal(okExt)
	c, _ := NewCustom(okCust)
	for _, p := range []signal.Provider{e, c} {
		if err := p.Fetch(context.Background(), []signal.Target{target("shop", "a", "")}, nil); err == nil {
			t.Errorf("%s: Fetch with fewer samples than targets returned no error", p.Name())
		}
	}
}
