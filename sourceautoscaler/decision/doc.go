// Package decision decides one source's vreplicas from its demand signal:
// pure, deterministic code with the clock passed in, no I/O and no
// allocation, so that the source autoscaler runs it for every source at
// every cycle and tests check it with exact numbers.
//
// The rules (docs/source-autoscaler.md writes them out with worked
// examples) are those of Knative's request autoscaler for the windows
// (a stable and a panic window, panic at twice what the current vreplicas
// serve, no decrease while panicking, rate limits, a scale-down delay,
// scale to zero after a grace) and KEDA's Kafka scaler for the rest
// (desired = ceil(lag / lag threshold), activation from zero, the partition
// caps, persistent lag left out, a fallback when the signal is missing,
// pause).
package decision
