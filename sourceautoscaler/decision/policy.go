package decision

import "time"

// Policy is the knobs of one source: config-source-autoscaler's defaults
// with the source's annotations over them (config.SourceAutoscalerConfig).
// Decide reads a Policy that config validated; bounds are documented there.
type Policy struct {
	// Target is the demand one vreplica serves, in the signal's unit (lag
	// per vreplica, KEDA's lagThreshold; or events per second): > 0.
	Target float64
	// ActivationThreshold: a source at zero wakes only when the signal is
	// above it, and goes to zero only after the signal has stayed at or
	// below it for ScaleToZeroGrace (KEDA's activationLagThreshold).
	ActivationThreshold float64
	// Min and Max bound the vreplicas (0 <= Min <= Max).
	Min, Max int32

	// PollingInterval is how often the signal is read; it is the width of
	// the windows' buckets unless StableWindow needs wider ones.
	PollingInterval time.Duration
	// StableWindow and PanicWindow are the windows averaged (60 s, 6 s).
	StableWindow, PanicWindow time.Duration
	// PanicThreshold: panic when the panic window's demand reaches this
	// many times what the current vreplicas serve (2).
	PanicThreshold float64
	// MaxScaleUpRate and MaxScaleDownRate bound one step to
	// ceil(current x up) and floor(current / down) (1000 and 2).
	MaxScaleUpRate, MaxScaleDownRate float64
	// ScaleDownDelay is how long a lower count must keep being wanted
	// before vreplicas are removed; the highest count wanted meanwhile is
	// the one applied.
	ScaleDownDelay time.Duration
	// ScaleToZeroGrace is how long the signal stays at or below
	// ActivationThreshold before a source goes to zero (KEDA's
	// cooldownPeriod).
	ScaleToZeroGrace time.Duration

	// AllowIdleConsumers lifts the cap of one vreplica a partition.
	AllowIdleConsumers bool
	// LimitToPartitionsWithLag caps at the partitions that have lag.
	LimitToPartitionsWithLag bool
	// EvenDistribution rounds up to a divisor of the partition count.
	EvenDistribution bool
	// ExcludePersistentLag leaves Sample.PersistentLag (and its
	// partitions) out of the signal.
	ExcludePersistentLag bool

	// StaleAfter: a sample measured longer ago than this is missing.
	StaleAfter time.Duration
	// FallbackAfter is the number of cycles in a row without a value after
	// which FallbackReplicas applies (>= 1).
	FallbackAfter int32
	// FallbackReplicas is the count while the signal is missing, from the
	// FallbackAfter-th cycle; 0 keeps the current count.
	FallbackReplicas int32

	// Paused freezes the source's vreplicas, or pins them to
	// PausedReplicas when it is >= 0.
	Paused         bool
	PausedReplicas int32
}

// DefaultPolicy returns the defaults of config-source-autoscaler:
// eventing-kafka-broker's for what it has keys for (min 0, max 50, polling
// 10 s, cooldown 30 s, lag threshold 100), Knative's for the windows.
func DefaultPolicy() Policy {
	return Policy{
		Target: 100, Max: 50,
		PollingInterval: 10 * time.Second,
		StableWindow:    60 * time.Second, PanicWindow: 6 * time.Second, PanicThreshold: 2,
		MaxScaleUpRate: 1000, MaxScaleDownRate: 2,
		ScaleToZeroGrace: 30 * time.Second,
		StaleAfter:       30 * time.Second,
		FallbackAfter:    3,
		PausedReplicas:   -1,
	}
}

// bucketWidth is the width of the windows' buckets: the polling interval,
// or wider when the stable window would need more than window.MaxBuckets.
func (p *Policy) bucketWidth(maxBuckets int64) time.Duration {
	w := max(p.PollingInterval, time.Second)
	if least := (int64(p.StableWindow) + maxBuckets - 1) / maxBuckets; int64(w) < least {
		w = time.Duration(least)
	}
	return w
}
