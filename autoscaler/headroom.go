package autoscaler

import (
	"fmt"
	"math"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

// headroomSize is the fewest pods that hold the demand with the
// configured slots free beside it: ceil((demand + headroom-slots) /
// capacity), and ceil(demand / (1 - headroom-share) / capacity) (Maestro's
// ready target), whichever is larger; ok is false when no headroom is
// configured.
func headroomSize(cfg *config.AutoscalerConfig, obs Observation) (int32, bool) {
	if cfg == nil || obs.Capacity <= 0 || (cfg.HeadroomSlots <= 0 && cfg.HeadroomShare <= 0) {
		return 0, false
	}
	demand := max(obs.Demand(), 0)
	capacity := int64(obs.Capacity)
	pods := (demand + int64(max(cfg.HeadroomSlots, 0)) + capacity - 1) / capacity
	if s := cfg.HeadroomShare; s > 0 && s < 1 {
		pods = max(pods, int64(math.Ceil(float64(demand)/(1-s)/float64(capacity))))
	}
	return int32(min(pods, vsched.MaxReplicas)), true
}

// withHeadroom raises the policy's answer to the headroom size. A headroom
// size below the current size shrinks the StatefulSet only when the free
// slots it leaves are at most headroom-down-threshold of the free slots
// there are now; otherwise the size stays (hysteresis), so a little less
// demand does not take a pod away only to bring it back.
func withHeadroom(cfg *config.AutoscalerConfig, obs Observation, rec Recommendation) Recommendation {
	h, ok := headroomSize(cfg, obs)
	if !ok || rec.Replicas >= h {
		return rec
	}
	if h >= obs.Current {
		rec.Replicas = h
		rec.Reason += fmt.Sprintf("; %d pod(s) keep the headroom free", h)
		return rec
	}
	capacity, demand := int64(obs.Capacity), max(obs.Demand(), 0)
	freeNow := int64(obs.Current)*capacity - demand
	freeWanted := int64(h)*capacity - demand
	if float64(freeWanted) <= cfg.HeadroomDown()*float64(freeNow) {
		rec.Replicas = h
		rec.Reason += fmt.Sprintf("; %d pod(s) keep the headroom free", h)
		return rec
	}
	rec.Replicas = obs.Current
	rec.Reason += fmt.Sprintf("; headroom keeps %d pod(s): %d free slot(s) wanted of %d is above the down threshold %v",
		obs.Current, freeWanted, freeNow, cfg.HeadroomDown())
	return rec
}
