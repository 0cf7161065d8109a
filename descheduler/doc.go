// Package descheduler decides what should leave where: which of a source's
// placements stay and which must move (SplitPlacements, used by the
// scheduler's Schedule and by the autoscaler's fit simulation alike), which
// pods to drain for lost nodes and lowered capacity (Drains) and for
// compaction (LowestSize, CompactionDrains), in what order and within which
// limits the drained pods' sources are requeued (PlanDrainMoves, PlanMoves)
// and moved (LimitDrainMoves), and which sources a rebalancing filter wants
// moved once a zone is back (RebalanceMoves, and RebalanceScan, which
// carries the search from one cycle to the next).
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
// scheduler profile's (Schedule), and removing a shrinking source's
// vreplicas the descheduler profile's (framework's Remove mode, built from
// config-descheduler by package config). Every function here reads a
// snapshot and changes nothing (RebalanceScan keeps only what it found), so the scheduler and the autoscaler's
// simulations apply the same rules to different states.
package descheduler
