package decision

import (
	"fmt"
	"math"
)

// Describe says what made the decision under p, one number a line: the
// body of `vsched explain` for a source's vreplicas. Explain is the same
// in one line, without the policy.
func (d Decision) Describe(p *Policy) []string {
	lines := []string{fmt.Sprintf("vreplicas: %d -> %d, mode %s", d.Current, d.Desired, d.Mode)}
	switch {
	case d.Mode == Paused:
		return append(lines, pausedLine(p))
	case !d.Known:
		return append(lines, fmt.Sprintf("signal: missing for %d cycle(s); the count is kept, or after %d cycle(s) set to the fallback of %d (0: kept)",
			d.Missing, p.FallbackAfter, p.FallbackReplicas))
	}
	served := float64(max(d.Current, 1)) * p.Target
	lines = append(lines,
		fmt.Sprintf("signal: %.6g, target %g per vreplica (activation above %g)", d.Signal, p.Target, p.ActivationThreshold),
		fmt.Sprintf("stable window %s: average %.6g, ceil(%.6g / %g) = %d", p.StableWindow, d.StableAverage, d.StableAverage, p.Target, d.StableDesired),
		fmt.Sprintf("panic window %s: average %.6g, ceil(%.6g / %g) = %d; panic from %g x %g = %g", p.PanicWindow, d.PanicAverage, d.PanicAverage, p.Target, d.PanicDesired, p.PanicThreshold, served, p.PanicThreshold*served),
		fmt.Sprintf("rate limits: from %d, at most %d (x%g up), at least %d (/%g down); scale-down delay %s",
			d.Current, upLimit(p, d.Current), p.MaxScaleUpRate, int64(math.Floor(float64(d.Current)/p.MaxScaleDownRate)), p.MaxScaleDownRate, p.ScaleDownDelay),
		fmt.Sprintf("bounds: min %d, max %d; %s", p.Min, p.Max, capLine(d)),
	)
	if d.Held != NotHeld {
		lines = append(lines, fmt.Sprintf("held: a lower count by the %s", d.Held))
	}
	return lines
}

func upLimit(p *Policy, current int32) int64 {
	return int64(min(math.Ceil(float64(max(current, 1))*p.MaxScaleUpRate), math.MaxInt32))
}

func pausedLine(p *Policy) string {
	if p.PausedReplicas >= 0 {
		return fmt.Sprintf("paused by annotation, pinned to %d", p.PausedReplicas)
	}
	return "paused by annotation, frozen at the current count"
}

func capLine(d Decision) string {
	if d.Cap > 0 {
		return fmt.Sprintf("capped at %d partition(s)", d.Cap)
	}
	return "no partition cap applied"
}
