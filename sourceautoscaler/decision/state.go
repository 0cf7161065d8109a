package decision

import (
	"time"

	"github.com/vsched/vsched/sourceautoscaler/window"
)

// State is what one source's decisions remember between cycles: the
// window of its signal and the timers of panic, scale-down delay and
// scale to zero. Its zero value is ready; it is about 900 bytes and holds
// no pointer, so that the autoscaler keeps them in a flat slice. A State
// is not safe for concurrent use.
type State struct {
	ring window.Ring
	// started: the ring has its geometry (see fit).
	started bool
	// panicking since panicSince: entered then, or last increased then.
	panicking  bool
	panicSince int64
	// warmSince is when this state began to observe: no decrease before a
	// stable window has passed (a new leader does not know the old one's
	// panic).
	warmSince int64
	// lastActive is the last time the signal was above the activation
	// threshold.
	lastActive int64
	// down: a lower count wanted since downSince, downMax the highest.
	down      bool
	downSince int64
	downMax   int32
	// lastUp and lastDown are when the count last rose and fell: the
	// opposite direction waits a stable window.
	lastUp, lastDown int64
	// missing counts the cycles in a row without a value.
	missing int32
	// lastNow is the previous cycle's time, to notice a clock going back.
	lastNow int64
}

// Reset forgets everything, as for a new source or a new leader.
func (s *State) Reset() { *s = State{} }

// fit gives the ring the policy's geometry, resetting the state when it
// changes, and pulls the timers back when the clock went back.
func (s *State) fit(now int64, p *Policy) {
	width := p.bucketWidth(window.MaxBuckets)
	n := (int64(p.StableWindow) + int64(width) - 1) / int64(width)
	if !s.started || s.ring.Width() != width || int64(s.ring.Len()) != n {
		*s = State{started: true, warmSince: now, lastActive: now, lastNow: now}
		// A validated policy always fits (bucketWidth sees to it).
		_ = s.ring.Reset(p.StableWindow, width)
		return
	}
	if now < s.lastNow {
		s.panicSince = min(s.panicSince, now)
		s.warmSince = min(s.warmSince, now)
		s.lastActive = min(s.lastActive, now)
		s.downSince = min(s.downSince, now)
		s.lastUp = min(s.lastUp, now)
		s.lastDown = min(s.lastDown, now)
	}
	s.lastNow = now
}

// panicBuckets is the number of buckets of the panic window.
func (s *State) panicBuckets(p *Policy) int {
	w := int64(s.ring.Width())
	return int(max(1, (int64(p.PanicWindow)+w-1)/w))
}

func since(now, t int64) time.Duration { return time.Duration(now - t) }
