package metricsapi

import (
	"context"
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"

	"github.com/vsched/vsched/usage"
)

// Config configures a Reader.
type Config struct {
	// Client is the metrics.k8s.io client
	// (versioned.NewForConfig(cfg).MetricsV1beta1()); give its rest.Config
	// a Timeout, since a Read waits for it.
	Client metricsclient.PodMetricsesGetter
	// Namespace is the adapter pods' namespace.
	Namespace string
	// Selector selects the adapter pods: the StatefulSet's
	// spec.selector (metav1.LabelSelectorAsSelector). Required, so that
	// a Read does not list every pod of the namespace.
	Selector labels.Selector
}

// Reader reads the adapter pods' usage from metrics.k8s.io. It is safe
// for concurrent use: it keeps no state between Reads.
type Reader struct {
	cfg      Config
	selector string
}

var _ usage.Reader = (*Reader)(nil)

// New validates cfg and returns a Reader.
func New(cfg Config) (*Reader, error) {
	switch {
	case cfg.Client == nil:
		return nil, errors.New("metricsapi: Config.Client: required (versioned.NewForConfig(cfg).MetricsV1beta1())")
	case cfg.Namespace == "":
		return nil, errors.New("metricsapi: Config.Namespace: required (the adapter pods' namespace)")
	case cfg.Selector == nil || cfg.Selector.Empty():
		return nil, errors.New("metricsapi: Config.Selector: required and not empty (the StatefulSet's spec.selector)")
	}
	return &Reader{cfg: cfg, selector: cfg.Selector.String()}, nil
}

// Read implements usage.Reader: one sample per pod that metrics.k8s.io
// has a measurement of, sorted by pod name, with Time and Window as the
// API reports them. A pod whose measurement lists no container (it has
// just started) is left out, as a pod without one is.
//
// Its errors wrap usage.ErrUnavailable when the API is not served (no
// APIService, metrics-server down or not ready, a timeout): that passes
// when metrics-server is back. A request the API server refuses
// (forbidden, unauthorized, invalid: the RBAC or the selector is wrong)
// does not pass by waiting and does not wrap it.
func (r *Reader) Read(ctx context.Context) ([]usage.Sample, error) {
	list, err := r.cfg.Client.PodMetricses(r.cfg.Namespace).List(ctx, metav1.ListOptions{LabelSelector: r.selector})
	if err != nil {
		return nil, classify(err, r.cfg.Namespace, r.selector)
	}
	out := make([]usage.Sample, 0, len(list.Items))
	for i := range list.Items {
		if s, ok := sample(&list.Items[i]); ok {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out, nil
}

// sample sums the containers of one pod's metrics.
func sample(pm *metricsv1beta1.PodMetrics) (usage.Sample, bool) {
	if len(pm.Containers) == 0 {
		return usage.Sample{}, false
	}
	sum := corev1.ResourceList{}
	for _, c := range pm.Containers {
		for name, q := range c.Usage {
			total := sum[name]
			total.Add(q)
			sum[name] = total
		}
	}
	return usage.Sample{Pod: pm.Name, Usage: sum, Time: pm.Timestamp.Time, Window: pm.Window.Duration}, true
}

// classify wraps err in usage.ErrUnavailable unless the API server
// refused the request itself.
func classify(err error, namespace, selector string) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	what := fmt.Sprintf("metricsapi: listing PodMetrics in %s (%s)", namespace, selector)
	switch {
	case apierrs.IsForbidden(err), apierrs.IsUnauthorized(err):
		return fmt.Errorf("%s: %w (grant list on pods.metrics.k8s.io to the controller)", what, err)
	case apierrs.IsBadRequest(err), apierrs.IsInvalid(err):
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: %w: %w", what, usage.ErrUnavailable, err)
}
