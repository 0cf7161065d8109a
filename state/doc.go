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
// Beside the pods and sources it keeps the indexes decisions read instead
// of walking everything: each node's candidates, each zone's free
// candidates in class order (a B-tree per zone, cloned copy-on-write for
// simulations), the nodes with room per zone, and the sources with pending
// vreplicas (requeued after every write that frees room). Each is updated
// by the change that affects it.
//
// The size decisions go by (Replicas) is the StatefulSet's as its informer
// shows it, except while a shrink is fenced: Fence makes the ordinals a
// shrink removes non-candidates before the size is written, and they stay
// so until an informer event confirms the shrink (ObserveReplicas), so a
// late informer never lets a decision use a pod that is going away.
//
// *State implements framework.Cluster. It is not safe for concurrent use by
// itself: callers hold its lock (Lock/Unlock) around every call, and a
// decision runs entirely under it, so two decisions never spend the same
// capacity.
//
// Counts read from statuses are input. Normalize sums a source's placements
// in int64 and cuts them at vsched.MaxVReplicas, reporting what it repaired;
// pods count their vreplicas in int64, so statuses that sum past MaxInt32
// never make a full pod look free. Ordinals far above the StatefulSet's
// replicas (Tracks) are strays: their pods and placements wait aside,
// taking no capacity and never draining, instead of growing the pods every
// call walks; they count once the StatefulSet grows near them.
package state
