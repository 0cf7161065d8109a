// Package monitoring checks vsched's alerts and dashboard
// (deploy/monitoring) against the code: ExportedMetrics lists the metric
// names the scheduler, the autoscaler and the source autoscaler export in
// Prometheus' format,
// MetricNames reads the metric names a PromQL query selects, and
// RuleManifest builds the PrometheusRule manifest from the plain rules
// file, so that the two cannot disagree.
package monitoring
