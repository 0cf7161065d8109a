// Package layout has no code: its tests check rules of the module's
// structure that the compiler does not (function length, which package may
// import which), so that a change breaking one fails `go test`.
package layout
