package config

import (
	"time"

	"github.com/vsched/vsched/sourceautoscaler/decision"
)

// DefaultSourceAutoscalerConfigMapName is the default name of the
// ConfigMap of the source autoscaler's defaults.
const DefaultSourceAutoscalerConfigMapName = "config-source-autoscaler"

// The data keys of config-source-autoscaler. The first six are also the
// per-source annotation keys, under AnnotationPrefix, that
// eventing-kafka-broker puts on its sources for KEDA.
const (
	KeyMinScale               = "min-scale"
	KeyMaxScale               = "max-scale"
	KeyLagThreshold           = "lag-threshold"
	KeyActivationLagThreshold = "activation-lag-threshold"
	KeyPollingInterval        = "polling-interval"
	KeyCooldownPeriod         = "cooldown-period"

	KeyStableWindow           = "stable-window"
	KeyPanicWindow            = "panic-window"
	KeyPanicThreshold         = "panic-threshold"
	KeySourceMaxScaleUpRate   = "max-scale-up-rate"
	KeySourceMaxScaleDownRate = "max-scale-down-rate"
	KeyScaleDownDelay         = "scale-down-delay"
	KeyAllowIdleConsumers     = "allow-idle-consumers"
	KeyLimitToPartitionsLag   = "limit-to-partitions-with-lag"
	KeyEvenDistribution       = "ensure-even-distribution-of-partitions"
	KeyExcludePersistentLag   = "exclude-persistent-lag"
	KeyStaleAfter             = "stale-after"
	KeyFallbackAfter          = "fallback-after-failures"
	KeyFallbackReplicas       = "fallback-replicas"
	KeyFetchTimeout           = "fetch-timeout"
)

// Per-source annotations.
const (
	// AnnotationPrefix is eventing-kafka-broker's prefix: a source carrying
	// AnnotationPrefix+KeyMinScale (and the five others of its keys) keeps
	// its settings when it moves from KEDA to vsched.
	AnnotationPrefix = "autoscaling.eventing.knative.dev/"
	// AnnotationPaused freezes a source's vreplicas ("true").
	AnnotationPaused = "vsched.dev/source-autoscaler-paused"
	// AnnotationPausedReplicas pins a source's vreplicas to its value.
	AnnotationPausedReplicas = "vsched.dev/source-autoscaler-paused-replicas"
)

// SourceAutoscalerConfig is the parsed config-source-autoscaler ConfigMap:
// the policy every source gets unless its annotations say otherwise
// (PolicyFor), and the loop's settings.
type SourceAutoscalerConfig struct {
	// ConfigMap is the name the config was read from, for errors.
	ConfigMap string
	// Policy holds the defaults of every knob (decision.DefaultPolicy's
	// unless the ConfigMap sets them); Paused is never set here.
	Policy decision.Policy
	// FetchTimeout bounds one provider round (default 5s, > 0): a hung
	// backend makes the round fail, not the loop stop.
	FetchTimeout time.Duration
}

// DefaultSourceAutoscalerConfig returns the defaults.
func DefaultSourceAutoscalerConfig() *SourceAutoscalerConfig {
	return &SourceAutoscalerConfig{
		ConfigMap:    DefaultSourceAutoscalerConfigMapName,
		Policy:       decision.DefaultPolicy(),
		FetchTimeout: 5 * time.Second,
	}
}

// SourceAutoscalerSource returns the configuration in force; nil, or a nil
// result, means the defaults. The result is shared: read it, do not change
// it. A new pointer means a new configuration.
type SourceAutoscalerSource func() *SourceAutoscalerConfig
