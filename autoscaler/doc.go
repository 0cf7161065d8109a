// Package autoscaler sizes the StatefulSet a statefulset.Scheduler places
// onto: it simulates the scheduler profile to find the fewest pods that hold
// every vreplica (the fit), asks a Policy, and grows, shrinks, compacts or
// holds, within the limits of config-autoscaler (config.AutoscalerConfig).
// docs/autoscaler.md describes the rules.
//
// It talks to the scheduler only through the Target interface defined
// here, which *statefulset.Scheduler implements with exported methods, each
// part of one of five narrow contracts:
//
//   - a read-only snapshot: StatefulSet, IsLeader, NotReady, Replicas,
//     Logger, DrainingAnnotation, and CloneLoaded, a copy of the state
//     loaded for the current term that the cycle simulates on;
//   - the lister (ListSources) and the profiles (PlaceProfile);
//   - a pending hook (SetPendingHook): a Schedule call leaving vreplicas
//     pending triggers a cycle (Trigger);
//   - the size-written notifications the lag work needs: Grown after a
//     scale-up; FenceShrink and EndShrink around a shrink's write, so that
//     no decision places on the ordinals it removes; and
//     SetStatefulSetReader, through which a term's first load reads the
//     size the previous leader wrote from the API server rather than from
//     an informer that may trail it;
//   - and evictor.DrainMemory, package evictor's own contract (the drain
//     marks), which the autoscaler only hands to its Drainer.
//
// Nothing else flows from the autoscaler to the scheduler: the move limit
// the scheduler applies to draining pods it reads itself
// (statefulset.Config.DrainMoveLimit, from the same config.AutoscalerSource
// the autoscaler reads), and the autoscaler's reads of the pods and the
// StatefulSet are its own (Options.Cache). Package statefulset does not
// import this one: a controller builds the scheduler, then the autoscaler
// over it (autoscaler.New), which installs its hooks.
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
