package config

import "time"

// DefaultAutoscalerConfigMapName is the default name of the ConfigMap that
// tunes the StatefulSet autoscaler.
const DefaultAutoscalerConfigMapName = "config-autoscaler"

// The data keys of config-autoscaler (kebab-case, as Knative's ConfigMaps).
const (
	KeyMinReplicas         = "min-replicas"
	KeyMaxReplicas         = "max-replicas"
	KeyStabilizationWindow = "stabilization-window"
	KeyScaleDownCooldown   = "scale-down-cooldown"
	KeyRefreshPeriod       = "refresh-period"
	KeyMaxScaleUpRate      = "max-scale-up-rate"
	KeyPolicy              = "policy"
	KeyUtilizationUpper    = "utilization-upper-threshold"
	KeyUtilizationLower    = "utilization-lower-threshold"
	KeyCompaction          = "compaction"
	KeyMaxMovesPerCycle    = "max-moves-per-cycle"
	KeyMaxMovesPerSource   = "max-moves-per-source"
	KeyUnavailablePodGrace = "unavailable-pod-grace"
	KeyRecommendOnly       = "recommend-only"
)

// Autoscaling policies.
const (
	// PolicyFit sizes the StatefulSet to the fewest pods that hold every
	// vreplica under the scheduler profile. It is the default, and the
	// floor of every other policy.
	PolicyFit = "fit"
	// PolicyUtilization keeps used/total capacity between the lower and
	// upper thresholds, never below what PolicyFit needs.
	PolicyUtilization = "utilization"
)

// AutoscalerConfig is the parsed config-autoscaler ConfigMap. Every field has
// a default (DefaultAutoscalerConfig); an absent ConfigMap or key means it.
type AutoscalerConfig struct {
	// ConfigMap is the name the config was read from, for errors.
	ConfigMap string
	// MinReplicas is the fewest pods (>= 0; default 0).
	MinReplicas int32
	// MaxReplicas is the most pods (>= MinReplicas, >= 1; default 100).
	MaxReplicas int32
	// StabilizationWindow is how long a smaller size must keep being
	// enough before the StatefulSet shrinks (default 5m, >= 0).
	StabilizationWindow time.Duration
	// ScaleDownCooldown is how long after a scale-up no scale-down happens
	// (default 5m, >= 0).
	ScaleDownCooldown time.Duration
	// RefreshPeriod is how often the autoscaler re-evaluates without being
	// asked (default 30s; must be > 0: a 0 period was a busy loop in the
	// design this descends from).
	RefreshPeriod time.Duration
	// MaxScaleUpRate bounds one scale-up to ceil(current*rate) pods (at
	// least current+1); 0 means unbounded (default 0; otherwise > 1).
	MaxScaleUpRate float64
	// Policy is PolicyFit (default), PolicyUtilization or PolicyTriggers.
	Policy string
	// Triggers are PolicyTriggers' up and down lists (nil: none).
	Triggers *Triggers
	// HeadroomSlots and HeadroomShare keep slots free beside the demand,
	// whatever the policy: at least HeadroomSlots (>= 0; default 0), and
	// HeadroomShare of the slots (0 <= share < 1; default 0). The
	// StatefulSet shrinks for headroom only when the free slots wanted
	// are at most HeadroomDownThreshold of those there are (0 <= t <= 1;
	// 0 means DefaultHeadroomDownThreshold), so headroom does not flap.
	HeadroomSlots         int32
	HeadroomShare         float64
	HeadroomDownThreshold float64
	// UtilizationUpper and UtilizationLower are the utilization policy's
	// thresholds, fractions with 0 < lower < upper <= 1 (defaults 0.8 and
	// 0.5). Between them nothing changes (hysteresis).
	UtilizationUpper float64
	UtilizationLower float64
	// Compaction enables draining high ordinals so the StatefulSet can
	// shrink (default true).
	Compaction bool
	// MaxMovesPerCycle bounds the vreplicas compaction moves per cycle
	// (default 100, >= 1).
	MaxMovesPerCycle int32
	// MaxMovesPerSource bounds the vreplicas of one source moved per cycle,
	// and those one Schedule call moves off draining pods, there never
	// more than MaxMovesPerCycle (AutoscalerSource.DrainMoveLimit; default
	// 10, >= 1).
	MaxMovesPerSource int32
	// UnavailablePodGrace is how long a pod's node may be NotReady or
	// unreachable before its vreplicas are moved elsewhere (default 5m,
	// >= 0).
	UnavailablePodGrace time.Duration
	// HotPodMemory and HotPodCPU are the shares of a pod's limit (its
	// capacity in that resource, docs/costs.md#pod-resources) above which
	// its measured usage makes it hot, 0 <= share <= 1, 0 turning the
	// resource off (defaults DefaultHotPodMemory and 0); a pod hot for
	// HotPodGrace (default DefaultHotPodGrace, 0..24h) sheds vreplicas.
	HotPodMemory, HotPodCPU float64
	HotPodGrace             time.Duration
	// UsageMaxAge is how old a usage sample may be and still count
	// (default DefaultUsageMaxAge, which 0 means too; at most 24h).
	UsageMaxAge time.Duration
	// RecommendOnly logs and reports the size the autoscaler would set,
	// without writing it (default false).
	RecommendOnly bool
}

// DefaultAutoscalerConfig returns the defaults documented on each field.
func DefaultAutoscalerConfig() *AutoscalerConfig {
	return &AutoscalerConfig{
		ConfigMap:           DefaultAutoscalerConfigMapName,
		MinReplicas:         0,
		MaxReplicas:         100,
		StabilizationWindow: 5 * time.Minute,
		ScaleDownCooldown:   5 * time.Minute,
		RefreshPeriod:       30 * time.Second,
		MaxScaleUpRate:      0,
		Policy:              PolicyFit,
		UtilizationUpper:    0.8,
		UtilizationLower:    0.5,
		Compaction:          true,
		MaxMovesPerCycle:    100,
		MaxMovesPerSource:   10,
		UnavailablePodGrace: 5 * time.Minute,
		HotPodMemory:        DefaultHotPodMemory,
		HotPodGrace:         DefaultHotPodGrace,
		UsageMaxAge:         DefaultUsageMaxAge,
		RecommendOnly:       false,
	}
}
