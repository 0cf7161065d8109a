// Package vsched holds the public types shared by every part of vsched: the
// VPod a source implements, the Placement it stores in its status, the
// Scheduler a source controller calls, and the errors and helpers around them.
//
// A VPod ("virtual pod") is one eventing source instance, for example a Kafka
// consumer group. Its vreplicas are the units of work it can be split into,
// and the scheduler places them onto the pods of a StatefulSet, each pod
// holding at most a fixed number of vreplicas (its capacity).
//
// Inputs are bounded: MaxVReplicas per source, MaxCapacity per pod and
// MaxReplicas pods per StatefulSet. Values given above them are rejected
// with an error; counts read from a status someone else wrote are repaired
// and reported, never wrapped.
package vsched
