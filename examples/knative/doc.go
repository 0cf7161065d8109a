// Package knative embeds vsched's scheduler in a knative.dev/pkg
// controller: a controller.Impl whose Reconciler schedules one source per
// key, on client-go shared informers.
//
// A source here is a ConfigMap, to keep the example free of generated
// types: its data key "vreplicas" is the spec, and the controller writes
// the placements and the Scheduled condition back as JSON under
// "status.placements" and "status.scheduled". Setup is the whole wiring:
// it builds an embedkit.Scheduler from the cluster's informer factory
// (statefulset.InformersFromFactory), makes the reconciler
// reconciler.LeaderAware through the scheduler (Promote enqueues every
// source), passes impl.EnqueueKey as the scheduler's Requeue and feeds the
// sources' informer through Scheduler.SourceHandler.
//
// It is a Go module of its own, like examples/controllerruntime; its test
// runs the controller on memcluster's fake clientset and schedules a
// source.
package knative
