package main

import (
	"flag"
	"fmt"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/vsched/vsched/usage"
	"github.com/vsched/vsched/usage/metricsapi"
)

// usageFlags are the flags that read the adapter pods' usage from the
// resource metrics API.
type usageFlags struct {
	on       bool
	selector string
}

func (f *usageFlags) register() {
	flag.BoolVar(&f.on, "metrics-api", false, "read the adapter pods' cpu and memory from the resource metrics API (metrics.k8s.io, metrics-server) for config-autoscaler's cpu and memory triggers")
	flag.StringVar(&f.selector, "metrics-api-selector", "", "label selector of the adapter pods for --metrics-api (default app.kubernetes.io/name=<--statefulset>)")
}

// mustReader is reader, or the end of the program on a bad flag.
func (f usageFlags) mustReader(logger *zap.SugaredLogger, cfg *rest.Config, namespace, statefulSet string) usage.Reader {
	r, err := f.reader(cfg, namespace, statefulSet)
	if err != nil {
		logger.Fatalw("metrics API flags", "error", err)
	}
	return r
}

// reader is the usage.Reader the flags ask for: nil without
// --metrics-api. The selector defaults to the label deploy/sample puts on
// the adapter's pods, app.kubernetes.io/name=<statefulset>.
func (f usageFlags) reader(cfg *rest.Config, namespace, statefulSet string) (usage.Reader, error) {
	if !f.on {
		if f.selector != "" {
			return nil, fmt.Errorf("--metrics-api-selector needs --metrics-api")
		}
		return nil, nil
	}
	sel := f.selector
	if sel == "" {
		sel = "app.kubernetes.io/name=" + statefulSet
	}
	selector, err := labels.Parse(sel)
	if err != nil {
		return nil, fmt.Errorf("--metrics-api-selector %q: %w", sel, err)
	}
	cfg = rest.CopyConfig(cfg)
	// metricsAPITimeout (signal.go) bounds one read as well: a cycle of
	// the autoscaler waits for it.
	cfg.Timeout = metricsAPITimeout
	client, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return metricsapi.New(metricsapi.Config{Client: client.MetricsV1beta1(), Namespace: namespace, Selector: selector})
}
