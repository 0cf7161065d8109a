// Package metricsapi is a usage.Reader over the resource metrics API
// (metrics.k8s.io, which metrics-server serves): one List of the adapter
// pods' PodMetrics by label selector per Read, each pod's containers summed.
//
// It is a package of its own so that a program that does not read usage
// from the metrics API does not link its client: embed and autoscaler take
// any usage.Reader.
package metricsapi
