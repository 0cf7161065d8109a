package decision

import (
	"math"
	"time"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// epsilon absorbs the rounding of an average before ceil: 300.0000000001
// lag over a target of 100 is 3 vreplicas, not 4.
const epsilon = 1e-9

// Decide decides the source's vreplicas at now from this cycle's sample
// (ok false when the provider's round failed) and the count the source has.
// It records the sample into s. p must be valid (config validates it).
func (s *State) Decide(now time.Time, p *Policy, current int32, smp signal.Sample, ok bool) Decision {
	t := now.UnixNano()
	s.fit(t, p)
	d := Decision{Current: current}
	s.observe(t, p, smp, ok, &d)
	switch {
	case p.Paused:
		d.Mode, d.Desired = Paused, current
		if p.PausedReplicas >= 0 {
			d.Desired = p.PausedReplicas
		}
	case !d.Known:
		s.fallback(p, &d)
	default:
		s.decideKnown(t, p, smp, &d)
	}
	return d
}

// observe records the cycle's value, or notes that it is missing: a
// missing value is not written to the window (it is not zero), the window
// holds its last value instead, so that an outage never reads as a drop.
func (s *State) observe(t int64, p *Policy, smp signal.Sample, ok bool, d *Decision) {
	stale := !smp.At.IsZero() && since(t, smp.At.UnixNano()) > p.StaleAfter
	if !ok || !smp.Known || stale || math.IsNaN(smp.Value) || smp.Value < 0 {
		s.missing++
		d.Missing = s.missing
		if v, had := s.ring.Latest(); had {
			s.record(t, v)
		}
		return
	}
	s.missing = 0
	v := smp.Value
	if p.ExcludePersistentLag {
		v = max(0, v-smp.PersistentLag)
	}
	if v > p.ActivationThreshold {
		s.lastActive = t
	}
	s.record(t, v)
	d.Known, d.Signal = true, v
}

// record writes v to the window; a window that starts again (a whole
// window without data, the clock gone back) warms up again: what it held
// no longer says what the source needs.
func (s *State) record(t int64, v float64) {
	if s.ring.Record(time.Unix(0, t), v) {
		s.warmSince = t
	}
}

// fallback: keep the count until the signal has been missing for
// FallbackAfter cycles, then the configured fallback if any; never zero
// and never the maximum because a value is missing. The count stays within
// the policy's bounds, which may have changed since it was set.
func (s *State) fallback(p *Policy, d *Decision) {
	d.Mode, d.Desired = Fallback, min(max(d.Current, p.Min), p.Max)
	if s.missing >= p.FallbackAfter && p.FallbackReplicas > 0 {
		d.Desired = min(max(p.FallbackReplicas, p.Min, 1), p.Max)
	}
}

// desiredFor is ceil(avg / target).
func desiredFor(avg, target float64) int32 {
	n := math.Ceil(avg/target - epsilon)
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(max(n, 0))
}

func (s *State) decideKnown(t int64, p *Policy, smp signal.Sample, d *Decision) {
	nowT := time.Unix(0, t)
	d.StableAverage, _ = s.ring.Average(nowT, s.ring.Len())
	d.PanicAverage, _ = s.ring.Average(nowT, s.panicBuckets(p))
	d.StableDesired = desiredFor(d.StableAverage, p.Target)
	d.PanicDesired = desiredFor(d.PanicAverage, p.Target)

	want := s.windows(t, p, d)
	want = rateLimited(p, d.Current, want)
	want = s.holdDecrease(t, p, d, want)
	want = s.holdIncrease(t, p, d, want)
	want = s.zero(t, p, d, want)
	want = capped(p, smp, d, want)
	want = min(max(want, p.Min), p.Max)
	switch {
	case want > d.Current:
		s.lastUp, s.lastDown = t, 0
		if s.panicking {
			s.panicSince = t
		}
	case want < d.Current:
		s.lastDown, s.lastUp = t, 0
	}
	d.Desired = want
	switch {
	case d.Cap > 0 && want == d.Cap:
		d.Mode = Capped
	case s.panicking:
		d.Mode = Panic
	default:
		d.Mode = Stable
	}
}

// windows runs the panic state machine and returns the count the windows
// ask for: the stable one's, or while panicking the larger of the two and
// never below the current count.
func (s *State) windows(t int64, p *Policy, d *Decision) int32 {
	served := float64(max(d.Current, 1)) * p.Target
	over := d.PanicAverage >= p.PanicThreshold*served-epsilon
	switch {
	case !s.panicking && over:
		s.panicking, s.panicSince = true, t
	case s.panicking && !over && since(t, s.panicSince) >= p.StableWindow:
		s.panicking = false
	}
	if !s.panicking {
		return d.StableDesired
	}
	return max(d.PanicDesired, d.StableDesired, d.Current)
}

// rateLimited bounds a step to [floor(current/down), ceil(current*up)],
// counting a source at zero as one for the way up.
func rateLimited(p *Policy, current, want int32) int32 {
	up := math.Ceil(float64(max(current, 1)) * p.MaxScaleUpRate)
	down := math.Floor(float64(current) / p.MaxScaleDownRate)
	return int32(min(max(float64(want), down), up, math.MaxInt32))
}

// holdDecrease keeps the current count while panicking, warming up, or
// within the scale-down delay; after the delay the highest count wanted
// during it applies.
func (s *State) holdDecrease(t int64, p *Policy, d *Decision, want int32) int32 {
	if want >= d.Current {
		s.down = false
		return want
	}
	switch {
	case s.panicking:
		d.Held = HeldByPanic
		return d.Current
	case since(t, s.warmSince) < p.StableWindow:
		d.Held = HeldByWarmUp
		return d.Current
	case s.lastUp != 0 && since(t, s.lastUp) < p.StableWindow:
		d.Held = HeldByRecentChange
		return d.Current
	}
	if !s.down {
		s.down, s.downSince, s.downMax = true, t, want
	}
	s.downMax = max(s.downMax, want)
	if since(t, s.downSince) < p.ScaleDownDelay {
		d.Held = HeldByDelay
		return d.Current
	}
	want, s.down = s.downMax, false
	return want
}

// holdIncrease keeps the count for a stable window after a decrease,
// unless panicking: a noisy signal does not make the count go down and up
// again. A source at zero is not held (activation decides).
func (s *State) holdIncrease(t int64, p *Policy, d *Decision, want int32) int32 {
	if want > d.Current && d.Current > 0 && !s.panicking && s.lastDown != 0 && since(t, s.lastDown) < p.StableWindow {
		d.Held = HeldByRecentChange
		return d.Current
	}
	return want
}

// zero applies activation and the scale-to-zero grace.
func (s *State) zero(t int64, p *Policy, d *Decision, want int32) int32 {
	active := d.Signal > p.ActivationThreshold
	switch {
	case d.Current == 0 && !active:
		if want > 0 {
			d.Held = HeldByActivation
		}
		return 0
	case d.Current == 0:
		return max(want, 1)
	case want == 0 && (active || since(t, s.lastActive) < p.ScaleToZeroGrace):
		d.Held = HeldByGrace
		return 1
	}
	return want
}

// capped applies the partition caps: one vreplica a partition (unless idle
// consumers are allowed), optionally only partitions with lag, and
// optionally a divisor of the partition count.
func capped(p *Policy, smp signal.Sample, d *Decision, want int32) int32 {
	parts := smp.Partitions
	if parts <= 0 || want == 0 {
		return want
	}
	if !p.AllowIdleConsumers {
		c := parts
		if p.LimitToPartitionsWithLag {
			c = smp.PartitionsWithLag
			if p.ExcludePersistentLag {
				c -= smp.PersistentPartitions
			}
			c = min(max(c, 1), parts)
		}
		if want > c {
			want, d.Cap = c, c
		}
	}
	if p.EvenDistribution && want < parts {
		for parts%want != 0 {
			want++
		}
	}
	return want
}
