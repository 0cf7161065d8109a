// Package ekbtest compiles and runs the wiring of
// docs/eventing-kafka-broker.md against eventing-kafka-broker's own
// packages (knative.dev/eventing-kafka-broker v0.49.2): its consumergroup
// controller's Scheduler and SchedulerConfig, and its ConsumerGroup as the
// VPod, scheduled by the adapter's NewStatefulSet on vsched's in-memory
// cluster. It is a module of its own so that neither the library nor the
// adapter depends on eventing-kafka-broker.
package ekbtest
