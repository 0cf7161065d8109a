// Package nettest gives tests loopback addresses that fail the ways a
// backend fails: nothing listening (a refused connection), and a listener
// that accepts and never answers (a request that hangs until its context
// ends). The signal providers' tests use both to check that a round fails
// promptly.
package nettest
