//go:build race

package statefulset

// raceEnabled says the tests run under the race detector, where the
// largest workloads take minutes.
const raceEnabled = true
