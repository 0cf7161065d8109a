// Package scripted is a signal.Provider whose values come from a script
// instead of a backend: shapes of time (a step, a ramp, a burst, noise)
// for the simulator, fixed samples for tests, and faults (a failed round,
// a round that hangs until its context ends, stale samples). It counts the
// rounds it serves, so that tests check one request per cycle.
package scripted
