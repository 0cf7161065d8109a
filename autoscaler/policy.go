package autoscaler

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/vsched/vsched/config"
)

// Observation is what the autoscaler knows of the StatefulSet in one cycle,
// handed to its Policy.
type Observation struct {
	// Now is the cycle's time.
	Now time.Time
	// Current is the StatefulSet's spec.replicas.
	Current int32
	// Capacity is the most vreplicas one pod holds.
	Capacity int32
	// Held is how many vreplicas the sources hold and keep: placed
	// (committed or reserved), up to what each source wants.
	Held int64
	// Pending is how many vreplicas wait for a pod: vreplicas not placed,
	// vreplicas that must leave draining pods, and the excess of pods over
	// capacity.
	Pending int64
	// Unplaceable is the part of Pending that no replica count up to
	// MaxReplicas would place (a source spread over as many pods as it has
	// partitions, for instance).
	Unplaceable int64
	// Fit is the fewest replicas that hold every vreplica the scheduler
	// profile can place, found by simulating the profile (see
	// docs/autoscaler.md). It is the floor of every policy's answer.
	Fit int32
	// Zones is how many zones host schedulable pods; ZoneSpread says
	// whether the profile spreads sources over them.
	Zones      int
	ZoneSpread bool
	// Config is the configuration in force.
	Config *config.AutoscalerConfig
}

// Demand is the vreplicas the StatefulSet should hold: those held plus
// those pending that some replica count can place.
func (o Observation) Demand() int64 { return o.Held + o.Pending - o.Unplaceable }

// Utilization is Demand over the capacity of Current pods, 0 without pods.
func (o Observation) Utilization() float64 {
	if o.Current <= 0 || o.Capacity <= 0 {
		return 0
	}
	return float64(o.Demand()) / (float64(o.Current) * float64(o.Capacity))
}

// Recommendation is a policy's answer.
type Recommendation struct {
	// Replicas is the size the policy wants.
	Replicas int32
	// Reason says why, for logs and Events.
	Reason string
}

// Policy turns an observation into the number of replicas the StatefulSet
// should have, as Maestro's autoscaling policies do. The autoscaler then
// raises the answer to Observation.Fit (a policy can never leave a
// placeable vreplica pending), bounds it by the min and max replicas, rounds
// it to the zones when the profile spreads over zones, and applies it with
// the stabilization window, the cooldown and the scale-up rate. Policies
// must be pure functions of the observation.
type Policy interface {
	// Name identifies the policy in logs, Events and metrics.
	Name() string
	// Recommend returns the size the policy wants.
	Recommend(ctx context.Context, obs Observation) Recommendation
}

// FitPolicy sizes the StatefulSet to the fewest pods that hold every
// vreplica under the scheduler profile: Observation.Fit. It is
// config.PolicyFit, the default.
type FitPolicy struct{}

var _ Policy = FitPolicy{}

// Name implements Policy.
func (FitPolicy) Name() string { return config.PolicyFit }

// Recommend implements Policy.
func (FitPolicy) Recommend(_ context.Context, obs Observation) Recommendation {
	switch {
	case obs.Fit > obs.Current:
		return Recommendation{Replicas: obs.Fit, Reason: fmt.Sprintf("%d vreplica(s) pending need %d pod(s)", obs.Pending-obs.Unplaceable, obs.Fit)}
	case obs.Fit < obs.Current:
		return Recommendation{Replicas: obs.Fit, Reason: fmt.Sprintf("%d vreplica(s) fit on %d pod(s)", obs.Demand(), obs.Fit)}
	}
	return Recommendation{Replicas: obs.Fit, Reason: "every vreplica fits"}
}

// UtilizationPolicy keeps the share of the StatefulSet's capacity in use
// (Observation.Utilization) between Lower and Upper. Above Upper it scales
// up, below Lower it scales down, in both cases to the size that puts
// utilization halfway between the thresholds; between them it keeps the
// size (hysteresis), so a small change of demand never flips the
// StatefulSet back and forth. It never answers below Fit. It is
// config.PolicyUtilization; zero thresholds mean the configuration's.
type UtilizationPolicy struct {
	Upper, Lower float64
}

var _ Policy = UtilizationPolicy{}

// Name implements Policy.
func (UtilizationPolicy) Name() string { return config.PolicyUtilization }

// Recommend implements Policy.
func (p UtilizationPolicy) Recommend(_ context.Context, obs Observation) Recommendation {
	upper, lower := p.Upper, p.Lower
	if obs.Config != nil {
		if upper == 0 {
			upper = obs.Config.UtilizationUpper
		}
		if lower == 0 {
			lower = obs.Config.UtilizationLower
		}
	}
	if !(0 < lower && lower < upper && upper <= 1) || obs.Capacity <= 0 {
		return Recommendation{Replicas: obs.Fit, Reason: fmt.Sprintf("utilization thresholds %v..%v are invalid; fitting", lower, upper)}
	}
	util := obs.Utilization()
	target := (upper + lower) / 2
	want := int32(math.Ceil(float64(obs.Demand()) / (float64(obs.Capacity) * target)))
	var r Recommendation
	switch {
	case obs.Current == 0 && obs.Demand() > 0:
		r = Recommendation{Replicas: want, Reason: fmt.Sprintf("%d vreplica(s) and no pods", obs.Demand())}
	case util > upper:
		r = Recommendation{Replicas: want, Reason: fmt.Sprintf("utilization %.2f above %.2f", util, upper)}
	case util < lower:
		r = Recommendation{Replicas: want, Reason: fmt.Sprintf("utilization %.2f below %.2f", util, lower)}
	default:
		r = Recommendation{Replicas: obs.Current, Reason: fmt.Sprintf("utilization %.2f within %.2f..%.2f", util, lower, upper)}
	}
	if r.Replicas < obs.Fit {
		r.Replicas = obs.Fit
		r.Reason += fmt.Sprintf("; %d pod(s) needed to fit every vreplica", obs.Fit)
	}
	return r
}

// policyFor returns the policy the configuration names.
func policyFor(cfg *config.AutoscalerConfig) Policy {
	if cfg != nil && cfg.Policy == config.PolicyUtilization {
		return UtilizationPolicy{}
	}
	return FitPolicy{}
}
