package signal

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Target names one source for a provider.
type Target struct {
	// Key is the source.
	Key types.NamespacedName
	// ID is what the provider knows the source by: the consumer group for
	// Kafka, the label value for a Prometheus or metrics-API query. Empty
	// means Key.String().
	ID string
	// Topics are the topics the source's consumer group reads (Kafka); nil
	// for providers that do not know topics.
	Topics []string
}

// Sample is one source's demand as a provider measured it.
type Sample struct {
	// Known is false when the provider has no value for the target (no
	// series, a null, a group it cannot see). Value is then meaningless and
	// the autoscaler treats the sample as missing, never as zero.
	Known bool
	// Value is the demand in the provider's unit: messages of lag, or events
	// per second. Never negative.
	Value float64
	// At is when the value was measured, by the provider's clock (the
	// Prometheus sample's timestamp, the time the lag round completed).
	// The autoscaler uses it to detect stale samples.
	At time.Time

	// The fields below are known only to partitioned sources (Kafka); they
	// are zero otherwise.

	// Partitions is the number of partitions of the source's topics.
	Partitions int32
	// PartitionsWithLag counts the partitions whose lag is above zero.
	PartitionsWithLag int32
	// PersistentLag is the part of Value held by partitions whose lag
	// persists while their committed offset has not moved since the
	// provider's previous round (a stuck message). It is included in Value;
	// the autoscaler may leave it out.
	PersistentLag float64
	// PersistentPartitions counts those partitions.
	PersistentPartitions int32
}

// Provider measures demand for many sources in one request.
type Provider interface {
	// Name identifies the provider in logs, Events and metrics.
	Name() string
	// Fetch measures every target and writes its sample to out[i] for
	// targets[i]; len(out) == len(targets). It makes at most one round of
	// requests to its backend whatever the number of targets. An error
	// means the whole round failed (every sample is then unknown); a target
	// the backend does not know gets Known false, not an error. Fetch must
	// return when ctx is done.
	Fetch(ctx context.Context, targets []Target, out []Sample) error
}
