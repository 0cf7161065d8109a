// Package autoscaler sizes the StatefulSet a statefulset.Scheduler places
// onto: it simulates the scheduler profile to find the fewest pods that hold
// every vreplica (the fit), asks a Policy, and grows, shrinks, compacts or
// holds, within the limits of config-autoscaler (config.AutoscalerConfig).
// docs/autoscaler.md describes the rules.
//
// It talks to the scheduler only through the Scheduler interface defined
// here, which *statefulset.Scheduler implements with exported methods: a
// copy of the state to simulate on (CloneLoaded), the profile, the sources'
// lister and readiness, leadership, a hook for pending vreplicas, and the
// notifications that keep a size write atomic with the scheduler's view
// (Grown; FenceShrink and EndShrink around a shrink). Package statefulset
// does not import this one: a controller builds the scheduler, then the
// autoscaler over it (autoscaler.New), which installs its hooks.
//
// What should leave which pod (drains for lost nodes and lowered capacity,
// compaction, requeue limits, rebalancing) is decided by package
// descheduler; the drains themselves are package evictor's protocol.
//
// A cycle (Reconcile) runs its phases in order: the drains wanted, the fit
// simulation (simulator), the policy and the bounds and zone rounding
// (bounded), the size write or hold (scaleUp, scaleDownWhenDue), the drains
// and requeues (applyDrains), and the record (Report, Events, metrics).
package autoscaler
