package metricsapi

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// CustomConfig configures a Custom provider.
type CustomConfig struct {
	// Client is the custom metrics client (custom_metrics.NewForConfig or
	// NewForVersionForConfig); give its rest.Config a Timeout.
	Client customclient.CustomMetricsClient
	// Namespace is the namespace of the sources' objects.
	Namespace string
	// Kind is the sources' kind, such as {Group: "sources.knative.dev",
	// Kind: "KafkaSource"}; the client's RESTMapper maps it to a resource.
	Kind schema.GroupKind
	// Selector selects the sources' objects; nil means every object of
	// Kind in Namespace.
	Selector labels.Selector
	// Metric is the custom metric's name.
	Metric string
	// MetricSelector narrows the metric's series; nil means all of them.
	MetricSelector labels.Selector
}

// Custom reads one custom metric of every source's object with one
// request; it implements signal.Provider. Items map to targets by the
// object they describe: a target's ID, or its Key, is namespace/name.
type Custom struct {
	cfg CustomConfig
}

var _ signal.Provider = (*Custom)(nil)

// NewCustom validates cfg and returns a provider.
func NewCustom(cfg CustomConfig) (*Custom, error) {
	switch {
	case cfg.Client == nil:
		return nil, errors.New("metricsapi: CustomConfig.Client: required (custom_metrics.NewForConfig)")
	case cfg.Namespace == "":
		return nil, errors.New("metricsapi: CustomConfig.Namespace: required (the namespace of the sources)")
	case cfg.Kind.Kind == "":
		return nil, errors.New("metricsapi: CustomConfig.Kind.Kind: required (the sources' kind, such as KafkaSource)")
	case cfg.Metric == "":
		return nil, errors.New("metricsapi: CustomConfig.Metric: required (the custom metric's name)")
	}
	if cfg.Selector == nil {
		cfg.Selector = labels.Everything()
	}
	if cfg.MetricSelector == nil {
		cfg.MetricSelector = labels.Everything()
	}
	return &Custom{cfg: cfg}, nil
}

// Name implements signal.Provider.
func (p *Custom) Name() string { return "custom-metrics" }

// Fetch implements signal.Provider with one request for every object the
// selector matches. A source with no item, two items, or a negative value
// gets Known false; At is the item's timestamp.
func (p *Custom) Fetch(ctx context.Context, targets []signal.Target, out []signal.Sample) error {
	if err := checkLen("metricsapi: custom", targets, out); err != nil {
		return err
	}
	clear(out)
	c := p.cfg
	list, err := call(ctx, func() (*v1beta2.MetricValueList, error) {
		return c.Client.NamespacedMetrics(c.Namespace).GetForObjects(c.Kind, c.Selector, c.Metric, c.MetricSelector)
	})
	if err != nil {
		return fmt.Errorf("metricsapi: getting custom metric %s of %s in %s: %w", c.Metric, c.Kind, c.Namespace, err)
	}
	byID := index(len(list.Items), func(i int) (string, bool) {
		o := list.Items[i].DescribedObject
		ns := o.Namespace
		if ns == "" {
			ns = c.Namespace
		}
		return types.NamespacedName{Namespace: ns, Name: o.Name}.String(), o.Name != ""
	})
	for i, t := range targets {
		if at, ok := byID[idOf(t)]; ok && at >= 0 {
			item := &list.Items[at]
			out[i] = sampleOf(item.Value, item.Timestamp.Time)
		}
	}
	return nil
}
