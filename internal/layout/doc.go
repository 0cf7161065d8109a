// Package layout has no code: its tests check rules of the module's
// structure that the compiler does not (function length, which package may
// import which, no hook reaching the scheduler's state), so that a change
// breaking one fails `go test`.
//
// The packages fall in tiers by their path (tiers_test.go): the library
// (every package outside the folders below, the adapters included);
// internal/lib, leaf libraries the library imports and which import
// nothing of the module but each other; internal/testkit, what tests
// share, imported only from tests; and the programs, cmd/, examples/ and
// their implementations under internal/app, which nothing but a program
// imports. The end-to-end suite, deploy/ and this package are tests.
package layout
