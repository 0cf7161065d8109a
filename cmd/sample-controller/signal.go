package main

import (
	"errors"

	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/prometheus"
)

// DefaultSignalLabel is --signal-label's default: the label of the query's
// series that names a source as namespace/name.
const DefaultSignalLabel = "source"

// signalFlags are the flags that turn on the source autoscaler with a
// Prometheus provider.
type signalFlags struct {
	prometheusURL, query, label string
}

// providers is the signal providers the flags ask for: none without
// --prometheus-url (the source autoscaler stays off), else one Prometheus
// provider. A query without a server, or a server without a query, is an
// error rather than a source autoscaler that silently does not run.
func (f signalFlags) providers() ([]signal.Provider, error) {
	switch {
	case f.prometheusURL == "" && f.query == "":
		return nil, nil
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
