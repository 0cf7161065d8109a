// Package sim runs vsched's scenarios for the vsched command: it reads a
// scenario (a cluster, the scheduling configuration, initial sources and
// steps; examples/README.md documents the format) and ConfigMap manifests,
// runs the real scheduler, autoscaler and evictor against an in-memory
// cluster (memcluster) on a fake clock, step by step, and writes what
// happened as a table, the stable JSON format, or a self-contained HTML
// report. It also records the framework's explanation of the scheduler's
// decisions, for `explain` and the report's "why".
//
// Everything it writes is deterministic: the same scenario gives the same
// bytes, which the golden files under testdata/golden pin.
package sim
