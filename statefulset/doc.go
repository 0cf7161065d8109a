// Package statefulset is the scheduler source controllers embed: it places
// the vreplicas of many sources onto the pods of one StatefulSet, reading the
// cluster through informers (Config.Informers: client-go's, or a
// controller-runtime manager's cache) and deciding with the profiles built
// by package config. It logs to the embedder's logger (Config.Logger, else
// the context's) and reports OpenTelemetry metrics (Metric*). Package embedkit
// wires it, with its autoscaler, into a controller.
//
// One Scheduler serves one StatefulSet; a controller may run several. The
// scheduler keeps every source's placements in memory (package state):
// committed ones, read from the sources' status, and reserved ones, decided
// but not yet seen written. Each Schedule call therefore costs what its own
// source needs, however many other sources share the StatefulSet.
//
// A decision runs under the state's lock, which informer handlers and every
// other call wait for. Its cost grows with the vreplicas it places, so
// Schedule refuses a source wanting more than vsched.MaxVReplicas and New a
// capacity above vsched.MaxCapacity; within them one call holds the lock a
// few milliseconds (BenchmarkScheduleAtBounds).
//
// What should leave where is decided by package descheduler: Schedule
// splits a source's placements into kept and moving
// (descheduler.SplitPlacements, which the autoscaler's simulation shares),
// holds moves back to the drain move limit (LimitDrainMoves, with the
// limit Config.DrainMoveLimit reads at each call that moves or
// rebalances, not at the others), places what
// is missing through the scheduler profile, removes a shrinking source's
// surplus (descheduler.Shrink) and makes the moves a rebalancing filter
// wants (WantsRebalance, Rebalance); it keeps the lock, the reservation
// and the counting and logging of the moves. The StatefulSet's size is package
// autoscaler's: it reaches the scheduler through the exported methods of
// sizing.go and shrink.go (a copy of the state, the profile, the lister,
// the pending hook and the size notifications), and this package does not
// import it.
package statefulset
