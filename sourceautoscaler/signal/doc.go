// Package signal is the contract between the source autoscaler and the
// providers that measure demand: Kafka consumer-group lag, a Prometheus
// query, the Kubernetes external and custom metrics APIs, or a script.
//
// A provider is asked once per cycle for every source it serves, so the
// number of requests it makes does not grow with the number of sources
// (KEDA asks once per ScaledObject per polling interval). Providers never
// decide a vreplica count; they report what they measured and when, and say
// plainly when they have no value, so that the autoscaler can tell "zero
// demand" from "no answer" and never scales to zero or to the maximum on a
// missing value.
package signal
