package framework

// FreeCandidateIndex is implemented by a Cluster that can list each node's
// candidates with free capacity without scanning every pod. The runtime's
// fast path uses it to find, per node, the lowest free pods a source does not
// hold: with thousands of mostly full pods that is the difference between
// touching a few pods per node and touching all of them on every decision.
type FreeCandidateIndex interface {
	// EachFreeCandidate calls fn with the ordinals of the node's candidate
	// pods whose Free is > 0, in ascending order, until fn returns false.
	// It may update internal caches, but must not change what the Cluster
	// reports.
	EachFreeCandidate(node int32, fn func(ordinal int32) bool)
}

// UsedPrefix is implemented by a Cluster that knows the highest ordinal
// holding any vreplica: every pod above it is empty. The fast path then
// stops listing a node's free candidates once it has as many empty ones as
// the decision can use, instead of reading every free pod to find the
// partly filled ones (best fit).
type UsedPrefix interface {
	// HighestUsedOrdinal is the highest ordinal whose pod holds any
	// vreplica (committed or reserved), -1 when none does.
	HighestUsedOrdinal() int32
}
