package vsched

// Upper bounds on inputs. Every bound is rejected with an error where the
// value is given (Schedule for a source's vreplicas, the scheduler's
// constructor for the capacity, the autoscaler's configuration for its
// replicas), and repaired with a reported problem where it is read from a
// status someone else wrote. Within them every count vsched keeps fits its
// integer type, and a single Schedule call holds the scheduler's lock for a
// bounded time (BenchmarkScheduleAtBounds in package statefulset measures
// it; docs/embedding.md gives the figures).
const (
	// MaxVReplicas is the most vreplicas one source may ask for: a Kafka
	// topic's partitions, with room to spare. A Schedule call runs under
	// the lock every other call and informer event waits for; placing and
	// removing cost time in proportion to the vreplicas placed or removed
	// (issue 21), not to the pods the source holds.
	MaxVReplicas = 10_000
	// MaxCapacity is the highest capacity a pod may have.
	MaxCapacity = 10_000
	// MaxReplicas is the most pods a StatefulSet may have: ordinals run
	// from 0 to MaxReplicas-1. Pods, placements and replicas beyond it are
	// ignored as foreign.
	MaxReplicas = 1 << 16
)
