// Package state is the cluster as vsched's plugins see it: the StatefulSet's
// pods by ordinal with their node and zone, which of them may receive new
// vreplicas (candidates), each pod's free capacity, and every source's
// placements, committed or reserved.
//
// The state is kept incrementally. Informer events (pods, nodes, the
// StatefulSet) and the scheduler's own decisions update it in place; nothing
// is re-listed per decision, so a decision costs what its source needs,
// however many other sources share the StatefulSet. A periodic resync from
// the sources' lister repairs drift.
//
// *State implements framework.Cluster. It is not safe for concurrent use by
// itself: callers hold its lock (Lock/Unlock) around every call, and a
// decision runs entirely under it, so two decisions never spend the same
// capacity.
package state
