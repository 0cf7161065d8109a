package config

import "time"

// Hot pods and measured usage (issue 23): a pod whose measured memory or
// CPU stays above a share of its limit for a grace period sheds vreplicas
// (docs/autoscaler.md#hot-pods). They act only where the autoscaler reads
// the pods' usage (autoscaler.Options.PodUsage).
const (
	// KeyHotPodMemory is the share of a pod's memory limit above which the
	// pod is hot; 0 turns memory off.
	KeyHotPodMemory = "hot-pod-memory"
	// KeyHotPodCPU is the same for CPU; 0 turns CPU off.
	KeyHotPodCPU = "hot-pod-cpu"
	// KeyHotPodGrace is how long a pod must stay hot before it sheds.
	KeyHotPodGrace = "hot-pod-grace"
	// KeyUsageMaxAge is how old a usage sample may be and still count:
	// older, the pod's usage is unknown (usage.Stale).
	KeyUsageMaxAge = "usage-max-age"

	// DefaultHotPodMemory, DefaultHotPodGrace and DefaultUsageMaxAge are
	// the defaults of their keys; hot-pod-cpu is off by default (a pod
	// over its CPU limit is throttled, not killed).
	DefaultHotPodMemory = 0.9
	DefaultHotPodGrace  = 5 * time.Minute
	DefaultUsageMaxAge  = 2 * time.Minute

	// maxUsageAge bounds usage-max-age (and hot-pod-grace): a day.
	maxUsageAge = 24 * time.Hour
)

// hotPods checks the hot-pod keys: 0 <= share <= 1 (0: off), a grace of
// at least 0 and an age of at least 0 (0: the default), both at most a day.
func (v *autoscalerCheck) hotPods() {
	cfg := v.cfg
	const share = "must be at least 0 (off) and at most 1 (a share of the pod's limit: 0.9 is 90%)"
	if !(cfg.HotPodMemory >= 0 && cfg.HotPodMemory <= 1) {
		v.invalid(KeyHotPodMemory, cfg.HotPodMemory, share)
	}
	if !(cfg.HotPodCPU >= 0 && cfg.HotPodCPU <= 1) {
		v.invalid(KeyHotPodCPU, cfg.HotPodCPU, share)
	}
	if cfg.HotPodGrace < 0 || cfg.HotPodGrace > maxUsageAge {
		v.invalid(KeyHotPodGrace, cfg.HotPodGrace.String(), "must be at least 0 and at most 24h")
	}
	if cfg.UsageMaxAge < 0 || cfg.UsageMaxAge > maxUsageAge {
		v.invalid(KeyUsageMaxAge, cfg.UsageMaxAge.String(), "must be at least 0 (the default, 2m) and at most 24h (metrics-server scrapes every 15s to 60s)")
	}
}

// UsageAge is UsageMaxAge with 0 read as DefaultUsageMaxAge.
func (c *AutoscalerConfig) UsageAge() time.Duration {
	if c.UsageMaxAge == 0 {
		return DefaultUsageMaxAge
	}
	return c.UsageMaxAge
}
