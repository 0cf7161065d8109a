// Package knative runs vsched behind Knative Eventing's scheduler API, so a
// source controller written against knative.dev/eventing/pkg/scheduler can
// switch to vsched without changing its reconciler.
//
// Scheduler implements scheduler.Scheduler over any vsched.Scheduler
// (typically a *statefulset.Scheduler): it takes Knative's VPod, returns
// duckv1alpha1.Placement values, and turns vsched's retryable errors into
// errors that knative.dev/pkg's controller requeues after a delay, as
// Knative's own scheduler does. VPod and Lister wrap Knative VPods and
// listers for statefulset.Config; FromKnative and ToKnative convert
// placements.
//
// NewStatefulSet takes the fields of Knative's statefulset.Config that
// eventing-kafka-broker's consumergroup controller passes (pod capacity,
// min replicas, refresh period, evictor, listers) and returns the scheduler
// with vsched's autoscaler; the autoscaler's requeue of a source on a
// draining pod calls the Evictor, and eventing.knative.dev/unschedulable is
// the draining annotation (docs/eventing-kafka-broker.md).
//
// The package lives in a Go module of its own (adapters/knative), so that
// the vsched module does not depend on knative.dev/eventing. It is built
// against knative.dev/eventing v0.49.2 (Knative 1.22); see
// docs/migrating-from-knative.md in the repository.
package knative
