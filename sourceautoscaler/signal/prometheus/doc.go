// Package prometheus is a signal provider that reads every source's demand
// from one PromQL instant query over Prometheus's HTTP API
// (/api/v1/query). The query returns one series per source, and a
// configured label carries the source's Target.ID, so one request serves
// every source whatever their number.
package prometheus
