// Package layout has no code: its tests check rules of the module's
// structure that the compiler does not (function length, which package may
// import which, no hook reaching the scheduler's state), so that a change
// breaking one fails `go test`.
package layout
