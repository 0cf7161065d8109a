// Package statehook lets this module's own tests outside package
// statefulset (the autoscaler's, which drive a scheduler and its autoscaler
// together) arrange or read a scheduler's state directly, under its lock,
// where no public method reaches: a reservation held, a capacity lowered.
// It is internal, so embedders cannot reach it; the scheduler's public
// surface stays Snapshot and the narrow drain methods. Package statefulset
// sets WithState when it is initialized.
package statehook

import "github.com/vsched/vsched/state"

// WithState runs f with the state of s, a *statefulset.Scheduler, under the
// state's lock. f must not block.
var WithState func(s any, f func(*state.State))
