package decision

import (
	"testing"
	"time"

	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

// flips runs a day of the series at the policy's polling interval and
// returns the changes of direction that came within a stable window of
// the change before, and the number of changes.
func flips(p Policy, series scripted.Series) (quick, changes int) {
	var s State
	cur := int32(0)
	var lastAt time.Time
	lastDir := 0
	for now := t0; now.Before(t0.Add(24 * time.Hour)); now = now.Add(p.PollingInterval) {
		d := s.Decide(now, &p, cur, signal.Sample{Known: true, Value: series(now), At: now}, true)
		if d.Desired == cur {
			continue
		}
		dir := 1
		if d.Desired < cur {
			dir = -1
		}
		changes++
		if lastDir != 0 && dir != lastDir && now.Sub(lastAt) < p.StableWindow {
			quick++
		}
		lastAt, lastDir, cur = now, dir, d.Desired
	}
	return quick, changes
}

// TestNoisyDay is issue 22's goal: over a simulated day of a flat lag of
// 1000 with ±30% noise (a new draw every second), no change of direction
// within a stable window, whatever the noise's seed.
func TestNoisyDay(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		noisy := scripted.Noise(scripted.Constant(1000), 0.3, time.Second, seed)
		for _, delay := range []time.Duration{0, time.Minute} {
			p := DefaultPolicy()
			p.ScaleDownDelay = delay
			if quick, changes := flips(p, noisy); quick != 0 || changes == 0 {
				t.Errorf("seed %d, scale-down delay %v: %d of %d changes turned back within a stable window", seed, delay, quick, changes)
			}
		}
	}
}
