// Package descheduler decides what should leave where: which of a source's
// placements stay and which must move (SplitPlacements, used by the
// scheduler's Schedule and by the autoscaler's fit simulation alike), which
// pods to drain for lost nodes and lowered capacity (Drains) and for
// compaction (LowestSize, CompactionDrains), in what order and within which
// limits the drained pods' sources are requeued (PlanDrainMoves, PlanMoves)
// and moved (LimitDrainMoves), and which sources a rebalancing filter wants
// moved once a zone is back (RebalanceMoves, RebalanceTrigger).
//
// It decides only. Marking pods draining and requeueing sources is package
// evictor's drain protocol; choosing where a moved vreplica goes is the
// scheduler profile's (Schedule), and removing a shrinking source's
// vreplicas the descheduler profile's (framework's Remove mode, built from
// config-descheduler by package config). Every function here reads a
// snapshot and changes nothing, so the scheduler and the autoscaler's
// simulations apply the same rules to different states.
package descheduler
