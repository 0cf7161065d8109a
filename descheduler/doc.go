// Package descheduler decides what should leave where: which of a source's
// placements stay and which must move (SplitPlacements, used by the
// scheduler's Schedule and by the autoscaler's fit simulation alike), which
// pods to drain for lost nodes and lowered capacity (Drains) and for
// compaction (LowestSize, CompactionDrains), in what order and within which
// limits the drained pods' sources are requeued (PlanDrainMoves)
// and moved (LimitDrainMoves), which vreplicas a shrinking source gives up
// (Shrink), and which of a source's vreplicas a rebalancing filter wants
// moved (WantsRebalance, Rebalance for one source in Schedule;
// RebalanceMoves, and RebalanceScan, which carries that search from one
// autoscaler cycle to the next, for all of them once a zone is back).
//
// Schedule's decision for one source reads as the steps of this package
// around one run of the scheduler profile: SplitPlacements, then
// LimitDrainMoves; then either the scheduler profile places what is
// missing or Shrink removes the surplus; then Rebalance when
// WantsRebalance says so.
//
// RebalanceScan looks each cycle only at the sources whose answer may have
// changed: those whose placements changed (the state logs them:
// state.ChangedSince), those found uneven or skipped last time, and those
// found without room once room appears (state.RoomMark); every source after
// a change of the profile or of the cluster's shape (Shape: the zones
// counted, the size, each pod's node and zone). This relies on what a
// framework.Rebalancer promises: its rule depends on the source's placements
// and that shape alone. TestRebalanceScanFindsWhatAFullScanFinds checks, on
// random sequences of changes, that it finds exactly what RebalanceMoves
// over every source finds.
//
// It decides only. Marking pods draining and requeueing sources is package
// evictor's drain protocol; choosing where a moved vreplica goes is the
// scheduler profile's, and running a profile, in either mode, is package
// framework's runtime (Profile.Run, Profile.Rebalance): Shrink and
// Rebalance choose what to run for a source and on which placements, and
// the profiles, built from config-scheduler and config-descheduler by
// package config, choose the pods. Every function here reads a cluster
// (a framework.Cluster, or a state.Reader where it needs the sources and
// the drains: a *state.State or a Snapshot) and changes nothing
// (RebalanceScan keeps only what it found from one call to the next), so
// the scheduler and the autoscaler's simulations apply the same rules to
// different states; counting and logging the moves is the caller's.
package descheduler
