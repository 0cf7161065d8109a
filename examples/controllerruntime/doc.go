// Package controllerruntime embeds vsched's scheduler and autoscaler in a
// controller-runtime manager, on the manager's one cache: the pods, nodes
// and StatefulSet informers the scheduler watches, the cache reads the
// autoscaler makes, and the sources' informer are all the manager's.
//
// Setup is the whole wiring: it builds an embedkit.Scheduler from the cache,
// runs its Run as a manager runnable (AlwaysLeader: the manager runs it
// only on the elected replica), feeds the scheduler's requeues into the
// controller's queue through a source.Channel, and registers a reconciler that schedules each Source
// and writes its placements and Scheduled condition to its status.
//
// It is a Go module of its own, so that vsched does not depend on
// controller-runtime; its test runs the manager on controller-runtime's
// fake client.
package controllerruntime
