// Package scalerun holds what make e2e-scale's run and the sample
// controller's memory benchmark share, so the benchmark measures the same
// sources the scale run creates.
package scalerun
