// Package metricsapi is a signal provider that reads demand from the
// Kubernetes external and custom metrics APIs (external.metrics.k8s.io,
// custom.metrics.k8s.io), which KEDA's metrics server and
// prometheus-adapter serve, so that a team reuses what it already runs.
//
// External asks for one external metric with one List, and maps its items
// to sources by a label; Custom asks for one custom metric of every
// source's object with one request by label selector, and maps the items
// by the object they describe. Either makes one request per Fetch, whatever
// the number of sources.
package metricsapi
