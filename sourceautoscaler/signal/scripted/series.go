package scripted

import (
	"math"
	"time"
)

// Series is a signal as a function of time.
type Series func(at time.Time) float64

// Constant is v at every time.
func Constant(v float64) Series { return func(time.Time) float64 { return v } }

// Step is before until at, then after.
func Step(before, after float64, at time.Time) Series {
	return func(t time.Time) float64 {
		if t.Before(at) {
			return before
		}
		return after
	}
}

// Ramp goes linearly from `from` at start to `to` at end, flat outside.
func Ramp(from, to float64, start, end time.Time) Series {
	span := end.Sub(start)
	return func(t time.Time) float64 {
		switch {
		case !t.Before(end):
			return to
		case !t.After(start):
			return from
		}
		return from + (to-from)*float64(t.Sub(start))/float64(span)
	}
}

// Burst is base, and peak from start for length.
func Burst(base, peak float64, start time.Time, length time.Duration) Series {
	end := start.Add(length)
	return func(t time.Time) float64 {
		if !t.Before(start) && t.Before(end) {
			return peak
		}
		return base
	}
}

// Noise multiplies s by 1 + u with u in [-fraction, fraction], drawn anew
// every period from seed: the same seed gives the same noise (no global
// randomness), whatever the order of the calls.
func Noise(s Series, fraction float64, period time.Duration, seed uint64) Series {
	if period <= 0 {
		period = time.Second
	}
	return func(t time.Time) float64 {
		x := splitmix(seed ^ uint64(t.UnixNano()/int64(period)))
		u := float64(x>>11)/float64(1<<53)*2 - 1
		return math.Max(0, s(t)*(1+fraction*u))
	}
}

// splitmix is SplitMix64's finaliser: a well-mixed hash of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
