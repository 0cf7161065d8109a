// Package sim runs vsched's scenarios for the vsched command: it reads a
// scenario (a cluster, the scheduling configuration, initial sources and
// steps; examples/README.md documents the format) and ConfigMap manifests,
// runs the real scheduler, autoscaler and evictor against an in-memory
// cluster (memcluster) on a fake clock, step by step, and writes what
// happened as a table, the stable JSON format, or a self-contained HTML
// report. It also records the framework's explanation of the scheduler's
// decisions, for `explain` and the report's "why". Time passes only in
// advance and traffic steps, and as on a cluster the autoscaler's loop runs
// a cycle per refresh period meanwhile; sources may declare costs, pods
// have resources, and usage steps set the pods' measured usage for the
// triggers policy.
//
// Files: sim.go the API and the world's set-up, runconfig.go the
// configuration a run starts with, steps.go the step interpreter,
// controller.go the source controller, record.go (and
// record_resources.go) each step's result, advance.go and autoscaling.go
// the autoscaler's cycles, table*.go, html*.go and output.go the outputs.
//
// Everything it writes is deterministic: the same scenario gives the same
// bytes, which the golden files under testdata/golden pin.
package sim
