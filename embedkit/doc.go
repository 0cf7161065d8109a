// Package embedkit is the wiring every source controller repeats around
// vsched's scheduler, so that embedding it is a few lines, whichever
// controller framework runs it (knative.dev/pkg's, controller-runtime, or
// plain client-go):
//
//   - New builds a statefulset.Scheduler and, given a client, its
//     autoscaler, whose evictor is the controller's requeue (the drain
//     protocol: the next Schedule of the source moves its vreplicas off the
//     draining pods, and the controller writes the result in one status
//     update). Both read config-autoscaler from Options.AutoscalerConfig:
//     the autoscaler each cycle, the scheduler its drain move limit at each
//     Schedule call that moves (Options.DrainMoveLimit, from
//     LiveConfig.DrainMoveLimit, reads it without copying the config); the
//     autoscaler reads the pods and the StatefulSet from
//     Options.AutoscalerCache.
//   - Scheduler.Run runs the periodic resync and the autoscaler.
//   - Scheduler.SourceHandler forwards the sources' informer events:
//     Observe on add and update, Forget on delete.
//   - Lister turns a list of your source objects into a vsched.VPodLister.
//   - WatchConfigMaps loads and live-reloads config-scheduler,
//     config-descheduler and config-autoscaler.
//   - Scheduler.Decide runs Schedule and says what the reconciler does
//     next: write the placements, requeue after a delay, and the Scheduled
//     condition to set (Condition).
package embedkit
