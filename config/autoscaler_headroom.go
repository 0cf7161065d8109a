package config

import "github.com/vsched/vsched"

// Headroom (issue 23): slots kept free so that a new source does not wait
// for a pod to start, as Maestro's ready target and fixed buffer.
const (
	// KeyHeadroomSlots keeps at least this many slots free.
	KeyHeadroomSlots = "headroom-slots"
	// KeyHeadroomShare keeps this share of the slots free (Maestro's
	// ready target): pods = ceil(demand / (1 - share) / capacity).
	KeyHeadroomShare = "headroom-share"
	// KeyHeadroomDownThreshold is the hysteresis: headroom lets the
	// StatefulSet shrink only when the free slots it wants are at most
	// this fraction of the free slots there are (Maestro's downThreshold).
	KeyHeadroomDownThreshold = "headroom-down-threshold"

	// DefaultHeadroomDownThreshold is what a headroom-down-threshold of 0
	// (or none) means.
	DefaultHeadroomDownThreshold = 0.99

	// maxHeadroomSlots bounds headroom-slots: every slot of the largest
	// StatefulSet of the largest pods.
	maxHeadroomSlots = int64(vsched.MaxReplicas) * vsched.MaxCapacity
)

// headroom checks the headroom keys: slots at least 0 (and at most every
// slot of the largest StatefulSet), 0 <= share < 1, 0 <= threshold <= 1
// (0: DefaultHeadroomDownThreshold).
func (v *autoscalerCheck) headroom() {
	cfg := v.cfg
	if cfg.HeadroomSlots < 0 || int64(cfg.HeadroomSlots) > maxHeadroomSlots {
		v.invalid(KeyHeadroomSlots, cfg.HeadroomSlots, "must be at least 0 and at most vsched.MaxReplicas x vsched.MaxCapacity")
	}
	if !(cfg.HeadroomShare >= 0 && cfg.HeadroomShare < 1) {
		v.invalid(KeyHeadroomShare, cfg.HeadroomShare, "must be at least 0 and less than 1 (a fraction of the slots: 0.2 is 20%)")
	}
	if !(cfg.HeadroomDownThreshold >= 0 && cfg.HeadroomDownThreshold <= 1) {
		v.invalid(KeyHeadroomDownThreshold, cfg.HeadroomDownThreshold, "must be between 0 and 1 (0: the default, 0.99)")
	}
}

// HeadroomDown is HeadroomDownThreshold with 0 read as
// DefaultHeadroomDownThreshold.
func (c *AutoscalerConfig) HeadroomDown() float64 {
	if c.HeadroomDownThreshold == 0 {
		return DefaultHeadroomDownThreshold
	}
	return c.HeadroomDownThreshold
}
