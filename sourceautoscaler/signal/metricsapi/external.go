package metricsapi

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// ExternalConfig configures an External provider.
type ExternalConfig struct {
	// Client is the external metrics client
	// (external_metrics.NewForConfig); give its rest.Config a Timeout.
	Client externalclient.ExternalMetricsClient
	// Namespace is the namespace the metric is asked in.
	Namespace string
	// Metric is the external metric's name.
	Metric string
	// Selector narrows the metric's series; nil means all of them.
	Selector labels.Selector
	// Label is the metric label whose value is a source's Target.ID
	// (Key.String() when the ID is empty).
	Label string
}

// External reads one external metric for every source with one List; it
// implements signal.Provider.
type External struct {
	cfg ExternalConfig
}

var _ signal.Provider = (*External)(nil)

// NewExternal validates cfg and returns a provider.
func NewExternal(cfg ExternalConfig) (*External, error) {
	switch {
	case cfg.Client == nil:
		return nil, errors.New("metricsapi: ExternalConfig.Client: required (external_metrics.NewForConfig)")
	case cfg.Namespace == "":
		return nil, errors.New("metricsapi: ExternalConfig.Namespace: required (the namespace the metric is served in)")
	case cfg.Metric == "":
		return nil, errors.New("metricsapi: ExternalConfig.Metric: required (the external metric's name)")
	case cfg.Label == "":
		return nil, errors.New("metricsapi: ExternalConfig.Label: required (the metric label that names the source)")
	}
	if cfg.Selector == nil {
		cfg.Selector = labels.Everything()
	}
	return &External{cfg: cfg}, nil
}

// Name implements signal.Provider.
func (p *External) Name() string { return "external-metrics" }

// Fetch implements signal.Provider with one List. A source with no item,
// two items, or a negative value gets Known false; At is the item's
// timestamp.
func (p *External) Fetch(ctx context.Context, targets []signal.Target, out []signal.Sample) error {
	if err := checkLen("metricsapi: external", targets, out); err != nil {
		return err
	}
	clear(out)
	list, err := call(ctx, func() (*v1beta1.ExternalMetricValueList, error) {
		return p.cfg.Client.NamespacedMetrics(p.cfg.Namespace).List(p.cfg.Metric, p.cfg.Selector)
	})
	if err != nil {
		return fmt.Errorf("metricsapi: listing external metric %s in %s: %w", p.cfg.Metric, p.cfg.Namespace, err)
	}
	byID := index(len(list.Items), func(i int) (string, bool) {
		id, ok := list.Items[i].MetricLabels[p.cfg.Label]
		return id, ok
	})
	for i, t := range targets {
		if at, ok := byID[idOf(t)]; ok && at >= 0 {
			item := &list.Items[at]
			out[i] = sampleOf(item.Value, item.Timestamp.Time)
		}
	}
	return nil
}
