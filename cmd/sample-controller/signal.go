package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"

	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/metricsapi"
	"github.com/vsched/vsched/sourceautoscaler/signal/prometheus"
)

// DefaultSignalLabel is --signal-label's default: the label of the query's
// series (or of the external metric) that names a source as namespace/name.
const DefaultSignalLabel = "source"

// metricsAPITimeout bounds a request to the metrics APIs: their typed
// clients take no context (docs/signal-providers.md, "Both").
const metricsAPITimeout = 10 * time.Second

// signalFlags are the flags that turn on the source autoscaler, with one
// provider: a Prometheus query, an external metric or a custom metric.
type signalFlags struct {
	prometheusURL, query, label string
	external, custom            string // the metric's name
	metricsNamespace            string // default: sourceNamespace
	metricSelector              string
	sourceNamespace             string // --source-namespace
}

// register defines the flags on fs.
func (f *signalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.prometheusURL, "prometheus-url", "", "turn on the source autoscaler: the Prometheus server (http://host:port) whose --signal-query measures every source's demand (empty: off)")
	fs.StringVar(&f.query, "signal-query", "", "PromQL instant query returning one series per source, its value the source's demand (lag), such as 'sum by (source) (kafka_consumergroup_lag)'")
	fs.StringVar(&f.label, "signal-label", DefaultSignalLabel, "label of --signal-query's series (or of --external-metric) whose value is the source's namespace/name")
	fs.StringVar(&f.external, "external-metric", "", "turn on the source autoscaler: the external metric (external.metrics.k8s.io, such as KEDA's or prometheus-adapter's) whose series, by --signal-label, measure every source's demand (empty: off)")
	fs.StringVar(&f.custom, "custom-metric", "", "turn on the source autoscaler: the custom metric (custom.metrics.k8s.io) of each SampleSource object that measures its demand (empty: off)")
	fs.StringVar(&f.metricsNamespace, "metrics-namespace", "", "the namespace --external-metric is asked in, or of the SampleSources --custom-metric describes (default --source-namespace)")
	fs.StringVar(&f.metricSelector, "metric-selector", "", "label selector narrowing --external-metric's or --custom-metric's series")
}

// providers is the signal provider the flags ask for: none when none is
// asked (the source autoscaler stays off). Half a provider (a query
// without a server) or two of them is an error rather than a source
// autoscaler that silently does not run, or measures with one of them only
// (each SampleSource is measured by the first provider).
func (f signalFlags) providers(cfg *rest.Config) ([]signal.Provider, error) {
	var asked []string
	if f.prometheusURL != "" || f.query != "" {
		asked = append(asked, "--prometheus-url")
	}
	if f.external != "" {
		asked = append(asked, "--external-metric")
	}
	if f.custom != "" {
		asked = append(asked, "--custom-metric")
	}
	switch {
	case len(asked) > 1:
		return nil, fmt.Errorf("%v: give one signal provider (each SampleSource is measured by one)", asked)
	case len(asked) == 0 && (f.metricsNamespace != "" || f.metricSelector != ""):
		return nil, errors.New("--metrics-namespace and --metric-selector need --external-metric or --custom-metric")
	case len(asked) == 0:
		return nil, nil
	case f.external != "" || f.custom != "":
		p, err := f.metricsAPI(cfg)
		if err != nil {
			return nil, err
		}
		return []signal.Provider{p}, nil
	case f.prometheusURL == "":
		return nil, errors.New("--signal-query needs --prometheus-url (the Prometheus server to query)")
	case f.query == "":
		return nil, errors.New("--prometheus-url needs --signal-query (a PromQL query returning one series per source, such as 'sum by (source) (lag)')")
	}
	p, err := prometheus.New(prometheus.Config{Address: f.prometheusURL, Query: f.query, Label: f.label})
	if err != nil {
		return nil, err
	}
	return []signal.Provider{p}, nil
}

// metricsAPI is the external or custom metrics provider of the flags, its
// clients made from cfg with a timeout.
func (f signalFlags) metricsAPI(cfg *rest.Config) (signal.Provider, error) {
	ns := f.metricsNamespace
	if ns == "" {
		ns = f.sourceNamespace
	}
	if ns == "" {
		return nil, errors.New("--external-metric and --custom-metric need --metrics-namespace (or --source-namespace): the metrics APIs are asked in one namespace")
	}
	sel, err := labels.Parse(f.metricSelector)
	if err != nil {
		return nil, fmt.Errorf("--metric-selector: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 {
		cfg.Timeout = metricsAPITimeout
	}
	if f.external != "" {
		client, err := externalclient.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		return metricsapi.NewExternal(metricsapi.ExternalConfig{Client: client, Namespace: ns, Metric: f.external, Selector: sel, Label: f.label})
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	cached := memory.NewMemCacheClient(disc)
	client := customclient.NewForConfig(cfg, restmapper.NewDeferredDiscoveryRESTMapper(cached), customclient.NewAvailableAPIsGetter(disc))
	return metricsapi.NewCustom(metricsapi.CustomConfig{
		Client: client, Namespace: ns, Kind: v1alpha1.GroupVersionKind.GroupKind(), Metric: f.custom, MetricSelector: sel,
	})
}
