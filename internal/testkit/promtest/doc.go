// Package promtest runs a real Prometheus server for tests: Debian's
// prometheus binary on a free loopback port, with its own TSDB directory
// and a configuration that scrapes the exporters a test serves, and an
// Exporter of per-source gauges to scrape. The unit tests of the
// Prometheus signal provider and the end-to-end suite (e2e/) share it.
//
// Without the binary, RequireBinary skips the test, unless CI=true: CI
// installs prometheus (.ci/run), and there the tests must run.
package promtest
