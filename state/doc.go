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
//
// # Who changes it
//
// Only the scheduler (package statefulset) changes its State, under the
// lock, from informer events, its own decisions and resyncs. Other packages
// read a Reader, a copy taken by Snapshot (statefulset.Scheduler.Snapshot);
// the drain protocol records marks through the scheduler's MarkDraining and
// UnmarkDraining, never through the State itself.
//
// # What-if simulation
//
// Clone and CloneFor return a copy that belongs to its caller, for
// simulations: the autoscaler places pending vreplicas on a copy extended
// with pods that do not exist yet (AddVirtualPods, BindStartingPods) and
// with drains lifted (ClearDraining), and nothing it does there reaches the
// scheduler. Those methods live in simulate.go and are meant for copies
// only; on the scheduler's own state the next informer event would undo
// them.
//
// Clone does no work per source, so the scheduler's lock is held briefly
// however many sources there are: the map of sources is copied as one
// block, and the per-source records are shared until one side changes
// one, which it copies first (each State
// owns the records stamped with its gen; Clone gives both sides new ones).
// Placement and holding slices are never changed in place. Derived indexes
// that are current are copied rather than rebuilt. A copy read by another
// goroutine while its original goes on changing is safe
// (TestCloneReadWhileOriginalChanges, under -race).
//
// A copy is still a *State rather than a type of its own, because a
// simulation runs the very code a decision runs: the framework runtime
// reads the copy as framework.Cluster and framework.FreeCandidateIndex, and
// the scheduler's placement step takes a *State. A separate type would
// either embed *State, and so carry every live method anyway, or repeat the
// forty-odd methods those interfaces and the step use. The line between the
// live index and a what-if copy is ownership: the live State is the
// scheduler's, reached by no other package; a copy is its caller's. The
// copy-on-write records did not change that: they make a copy cheap, but a
// copy still has to be a whole Cluster for the runtime to decide on.
//
// # What is promised
//
// The promised part of this package (docs/versioning.md) is what a reader
// needs: Reader and the value types its methods return, Options, Fence,
// the constants, New and Clone. The methods of *State that change it
// (AddVirtualPods, BindStartingPods, ClearDraining, DeleteNode, DeletePod,
// DropReservations, ExpireOne, ExpireReservations, Fence, FenceWritten,
// Forget, LiftTombstone, MarkDraining, Observe, ObserveReplicas,
// ObserveWithProblems, Reserve, RestoreFence, Resync, ResyncFresh, Set*,
// Unfence, UnmarkRemoved, Upsert*) are for vsched's own packages, the
// scheduler and the simulations that run its code on a copy: they may
// change in any minor release, and an embedder reaches the live state only
// through statefulset.Scheduler's read-only views and Snapshot.
//
// # What changed since
//
// The state logs the sources whose placements, holdings or vreplicas
// changed (ChangeMark, ChangedSince), and keeps a mark that grows whenever
// some pod may have gained room (RoomMark), so that a search repeated every
// cycle over the sources (the descheduler's RebalanceScan) looks again only
// at what changed. The log is restarted once it holds twice the sources
// and a few thousand more; a mark from before then reads as "everything
// changed". Copies share the log up to where it ended when they were
// taken; a copy that changes a source starts a log of its own, so a mark
// taken from it never reads as a position in the original's.
package state
