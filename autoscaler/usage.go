package autoscaler

import (
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/costestimate"
	"github.com/vsched/vsched/state"
	"github.com/vsched/vsched/usage"
)

// Event reasons of the measured usage (issue 23).
const (
	// ReasonPodHot is recorded on a pod that sheds vreplicas because its
	// measured usage stayed over its hot-pod limit for the grace period.
	ReasonPodHot = "PodHot"
	// ReasonCostEstimatesExpired is recorded on the StatefulSet when the
	// measured costs stop being in force (no usage measured for longer
	// than the estimates' MaxAge): the sources that measure their costs
	// count what they declare, or their slots alone.
	ReasonCostEstimatesExpired = "CostEstimatesExpired"
)

// usageCycle is a cycle's use of the pods' measured usage: read once,
// keep the samples that are fresh, feed the cost estimates, and find and
// shed hot pods. Without Options.PodUsage it does nothing.
func (a *Autoscaler) usageCycle(c *cycle) {
	if a.cfg.PodUsage == nil {
		return
	}
	now := c.dec.Time
	samples, err := a.cfg.PodUsage.Read(c.ctx)
	a.reportUsageError(c, err)
	fresh := freshByOrdinal(c.base, samples, now, c.cfg.UsageAge())
	a.forgetGone(c)
	a.feedEstimates(c, fresh)
	a.reportEstimates(c)
	a.hotCycle(c, fresh)
	a.guardSheds(c, fresh)
}

// freshByOrdinal keeps the samples of the StatefulSet's pods below the
// replicas that are not stale at now, by ordinal.
func freshByOrdinal(base *state.State, samples []usage.Sample, now time.Time, maxAge time.Duration) map[int32]usage.Sample {
	out := make(map[int32]usage.Sample, len(samples))
	for _, s := range samples {
		ord, ok := base.OrdinalOf(s.Pod)
		if !ok || ord >= base.Replicas() || usage.Stale(s, now, maxAge) {
			continue
		}
		out[ord] = s
	}
	return out
}

// reportUsageError logs a failing usage read when it starts and when it
// ends, not every cycle.
func (a *Autoscaler) reportUsageError(c *cycle, err error) {
	switch {
	case err != nil && !a.usageFailing:
		a.usageFailing = true
		level := c.log.Warnw
		if errors.Is(err, usage.ErrUnavailable) {
			level = c.log.Infow
		}
		level("vsched autoscaler: the pods' usage cannot be read; no pod sheds for its usage, and the cost estimates age", "error", err)
	case err == nil && a.usageFailing:
		a.usageFailing = false
		c.log.Infow("vsched autoscaler: the pods' usage can be read again")
	}
}

// feedEstimates runs a round of the cost estimates on the fresh samples
// and what each source holds on those pods as the cycle's state counts it.
func (a *Autoscaler) feedEstimates(c *cycle, fresh map[int32]usage.Sample) {
	if a.estimates == nil || len(fresh) == 0 {
		return
	}
	holdings := c.base.HoldingsOn(func(ord int32) bool { _, ok := fresh[ord]; return ok })
	// Holdings come grouped by ordinal: one Pod per ordinal.
	pods := make([]costestimate.Pod, 0, len(fresh))
	last := int32(-1)
	for _, h := range holdings {
		if len(pods) == 0 || h.Ordinal != last {
			pods = append(pods, costestimate.Pod{Usage: fresh[h.Ordinal].Usage})
			last = h.Ordinal
		}
		p := &pods[len(pods)-1]
		p.Sources = append(p.Sources, costestimate.Share{Source: h.Source, VReplicas: h.VReplicas})
		a.noteFed(h.Source)
	}
	a.estimates.Observe(pods, c.dec.Time)
}

// reportEstimates says, once each way, when the cost estimates stop being
// in force (too old) and when they are again: a Warning Event on the
// StatefulSet and a log line.
func (a *Autoscaler) reportEstimates(c *cycle) {
	if a.estimates == nil {
		return
	}
	expired := a.estimates.Expired(c.dec.Time)
	if expired == a.estimatesExpired {
		return
	}
	a.estimatesExpired = expired
	if expired {
		at := a.estimates.MeasuredAt()
		a.event(c.set, corev1.EventTypeWarning, ReasonCostEstimatesExpired,
			"no pod usage measured since %s: the measured costs are no longer in force; sources count their declared costs, or their slots alone",
			at.UTC().Format(time.RFC3339))
		c.log.Warnw("vsched autoscaler: the measured costs expired; sources count their declared costs", "measuredAt", at)
		return
	}
	c.log.Infow("vsched autoscaler: measured costs are in force again")
}
