package decision

import (
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

var t0 = time.Unix(1_000_000, 0)

func sec(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// step is one cycle: at second At the provider reports Value (Missing:
// nothing), and the decision must be Want in mode Mode (Held when given).
type step struct {
	At      int
	Value   float64
	Missing bool
	// Sample overrides the sample built from Value.
	Sample *signal.Sample
	Want   int32
	Mode   Mode
	Held   Held
}

type got struct {
	At   int
	Want int32
	Mode Mode
	Held Held
}

// run feeds the steps to a state starting at current, the decided count
// becoming the next cycle's current (as the write and the lister would).
func run(t *testing.T, p Policy, s *State, current int32, steps []step) int32 {
	t.Helper()
	var gotSteps, wantSteps []got
	for _, st := range steps {
		smp := signal.Sample{Known: true, Value: st.Value, At: sec(st.At)}
		if st.Sample != nil {
			smp = *st.Sample
		}
		d := s.Decide(sec(st.At), &p, current, smp, !st.Missing)
		gotSteps = append(gotSteps, got{st.At, d.Desired, d.Mode, d.Held})
		wantSteps = append(wantSteps, got{st.At, st.Want, st.Mode, st.Held})
		current = d.Desired
	}
	if diff := cmp.Diff(wantSteps, gotSteps); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	return current
}

// TestBurstPanicAndCalm is the worked example of docs/source-autoscaler.md:
// buckets of 10 s (the polling interval), a stable window of 6 buckets and
// a panic window of 1, a target of 100 lag a vreplica.
func TestBurstPanicAndCalm(t *testing.T) {
	p := DefaultPolicy()
	run(t, p, &State{}, 2, []step{
		// 200 over 2 vreplicas: 2.
		{At: 0, Value: 200, Want: 2, Mode: Stable},
		{At: 10, Value: 200, Want: 2, Mode: Stable},
		// The panic window's 1000 reaches 2 x 2 x 100: panic, 10 at once
		// (the stable window's (200+200+1000)/3 would ask 5).
		{At: 20, Value: 1000, Want: 10, Mode: Panic},
		// 300 asks 3, the stable window's 1700/4 = 425 asks 5: no decrease
		// while panicking.
		{At: 30, Value: 300, Want: 10, Mode: Panic, Held: NotHeld},
		// No cycle from 40 to 70 (the gap counts as zero); at 80 a stable
		// window has passed since the last increase (20): panic ends. The
		// stable window (30..80) is (300+0+0+0+0+300)/6 = 100: 1 wanted,
		// floor(10/2) = 5 at most removed in one step.
		{At: 80, Value: 300, Want: 5, Mode: Stable},
		// (0+0+0+0+300+300)/6 = 100: 1 wanted, floor(5/2) = 2 allowed.
		{At: 90, Value: 300, Want: 2, Mode: Stable},
		// (0+0+0+300+300+300)/6 = 150: 2.
		{At: 100, Value: 300, Want: 2, Mode: Stable},
	})
}

// TestScaleToZeroAndActivation: a grace of 30 s at or below the
// activation threshold (50) before zero, then activation only above it.
func TestScaleToZeroAndActivation(t *testing.T) {
	p := DefaultPolicy()
	p.ActivationThreshold = 50
	run(t, p, &State{}, 1, []step{
		{At: 0, Value: 100, Want: 1},
		// The stable average is 50, 33.3, 25, 20, 16.7: 1 each time.
		{At: 10, Value: 0, Want: 1},
		{At: 20, Value: 0, Want: 1},
		{At: 30, Value: 0, Want: 1},
		{At: 40, Value: 0, Want: 1},
		{At: 50, Value: 0, Want: 1},
		// The window (10..60) is all zero: 0 wanted, and the signal has
		// been at or below 50 for 60 s, more than the grace.
		{At: 60, Value: 0, Want: 0},
		// 40 is not above the activation threshold: stay at zero.
		{At: 70, Value: 40, Want: 0, Held: HeldByActivation},
		// 120 is: (0+0+0+0+40+120)/6 = 26.7 asks 1.
		{At: 80, Value: 120, Want: 1},
	})
}

// TestGraceKeepsOne: the signal drops to zero after being active; the
// window would allow zero, but the grace has not passed since the last
// active sample.
func TestGraceKeepsOne(t *testing.T) {
	p := DefaultPolicy()
	p.ScaleToZeroGrace = 90 * time.Second
	s := &State{}
	cur := run(t, p, s, 1, []step{
		{At: 0, Value: 10, Want: 1}, {At: 10, Value: 10, Want: 1},
		{At: 20, Value: 0, Want: 1}, {At: 30, Value: 0, Want: 1},
		{At: 40, Value: 0, Want: 1}, {At: 50, Value: 0, Want: 1},
		{At: 60, Value: 0, Want: 1},
		// The window (20..70) is all zero; last active at 10: 60 s < 90 s.
		{At: 70, Value: 0, Want: 1, Held: HeldByGrace},
		{At: 80, Value: 0, Want: 1, Held: HeldByGrace},
		{At: 90, Value: 0, Want: 1, Held: HeldByGrace},
		{At: 100, Value: 0, Want: 0},
	})
	if cur != 0 {
		t.Fatalf("ended at %d", cur)
	}
}

// TestScaleDownDelay: a lower count must be wanted for the delay, and the
// highest wanted during it applies.
func TestScaleDownDelay(t *testing.T) {
	p := DefaultPolicy()
	p.PollingInterval = time.Second
	p.StableWindow = 10 * time.Second
	p.PanicWindow = time.Second
	p.ScaleDownDelay = 3 * time.Second
	p.MaxScaleDownRate = 100
	steps := []step{}
	for i := 0; i < 10; i++ {
		steps = append(steps, step{At: i, Value: 800, Want: 8})
	}
	// From 10 the stable window (1 s buckets, 10 of them) falls by 80 a
	// second: (800*9+0)/10 = 720 asks 8 still; then 640 (7), 560 (6), 480
	// (5) ...
	steps = append(steps,
		step{At: 10, Value: 0, Want: 8},
		step{At: 11, Value: 0, Want: 8, Held: HeldByDelay}, // 7 wanted since 11
		step{At: 12, Value: 0, Want: 8, Held: HeldByDelay}, // 6
		step{At: 13, Value: 0, Want: 8, Held: HeldByDelay}, // 5
		step{At: 14, Value: 0, Want: 7},                    // 3 s passed: the highest wanted, 7
		step{At: 15, Value: 0, Want: 7, Held: HeldByDelay}, // 4 wanted, a new delay
	)
	run(t, p, &State{}, 8, steps)
}

// TestLeaderChangeInPanic: a new leader starts with an empty state while
// the old one had panicked to 10: it keeps 10 for a stable window (no
// decrease while warming up) instead of reading one low sample.
func TestLeaderChangeInPanic(t *testing.T) {
	p := DefaultPolicy()
	old := &State{}
	cur := run(t, p, old, 1, []step{
		{At: 0, Value: 100, Want: 1},
		{At: 10, Value: 1000, Want: 10, Mode: Panic},
	})
	fresh := &State{}
	run(t, p, fresh, cur, []step{
		{At: 20, Value: 200, Want: 10, Held: HeldByWarmUp},
		{At: 70, Value: 200, Want: 10, Held: HeldByWarmUp},
		// A stable window after the new leader's first cycle: 2.
		{At: 80, Value: 200, Want: 5},
	})
}

// TestClockJumps: a jump forward over a whole window starts the window
// again and warms up; a jump back does too, and pulls the timers back.
func TestClockJumps(t *testing.T) {
	p := DefaultPolicy()
	s := &State{}
	cur := run(t, p, s, 4, []step{
		{At: 0, Value: 400, Want: 4}, {At: 10, Value: 400, Want: 4},
		{At: 20, Value: 400, Want: 4}, {At: 30, Value: 400, Want: 4},
		{At: 40, Value: 400, Want: 4}, {At: 50, Value: 400, Want: 4},
		{At: 60, Value: 400, Want: 4}, {At: 70, Value: 400, Want: 4},
		// An hour later: one sample of 100 would ask 1, but the window
		// starts again and warms up.
		{At: 3670, Value: 100, Want: 4, Held: HeldByWarmUp},
		// Back by 50 minutes: the same.
		{At: 670, Value: 100, Want: 4, Held: HeldByWarmUp},
		{At: 720, Value: 100, Want: 4, Held: HeldByWarmUp},
		{At: 730, Value: 100, Want: 2},
	})
	if cur != 2 {
		t.Errorf("ended at %d", cur)
	}
}

// TestCaps: the partition caps with exact numbers; 1000 lag asks 10.
func TestCaps(t *testing.T) {
	type c struct {
		name   string
		edit   func(*Policy)
		sample signal.Sample
		want   int32
		mode   Mode
	}
	base := signal.Sample{Known: true, Value: 1000, At: t0, Partitions: 4, PartitionsWithLag: 2}
	with := func(f func(*signal.Sample)) signal.Sample { s := base; f(&s); return s }
	for _, tc := range []c{
		{"one vreplica a partition", nil, base, 4, Capped},
		{"idle consumers allowed", func(p *Policy) { p.AllowIdleConsumers = true }, base, 10, Panic},
		{"only partitions with lag", func(p *Policy) { p.LimitToPartitionsWithLag = true }, base, 2, Capped},
		{"no partition count: no cap", nil, with(func(s *signal.Sample) { s.Partitions = 0 }), 10, Panic},
		{"a divisor of 12 partitions: 10 becomes 12", func(p *Policy) { p.EvenDistribution = true },
			with(func(s *signal.Sample) { s.Partitions = 12 }), 12, Panic},
		{"a divisor of 12 partitions: 5 becomes 6", func(p *Policy) { p.EvenDistribution = true },
			with(func(s *signal.Sample) { s.Partitions = 12; s.Value = 500 }), 6, Panic},
		{"persistent lag left out: 1000-700 asks 3", func(p *Policy) { p.ExcludePersistentLag = true },
			with(func(s *signal.Sample) { s.Partitions = 12; s.PersistentLag = 700; s.PersistentPartitions = 1 }), 3, Panic},
		{"persistent partitions left out of those with lag", func(p *Policy) { p.ExcludePersistentLag = true; p.LimitToPartitionsWithLag = true },
			with(func(s *signal.Sample) {
				s.Partitions = 12
				s.PartitionsWithLag = 3
				s.PersistentLag = 100
				s.PersistentPartitions = 1
			}), 2, Capped},
		{"min above the cap wins", func(p *Policy) { p.Min = 6 }, base, 6, Panic},
		{"max below the cap", func(p *Policy) { p.Max = 3 }, base, 3, Panic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultPolicy()
			if tc.edit != nil {
				tc.edit(&p)
			}
			d := (&State{}).Decide(t0, &p, 1, tc.sample, true)
			if d.Desired != tc.want || d.Mode != tc.mode {
				t.Errorf("Desired %d mode %v; want %d mode %v (%+v)", d.Desired, d.Mode, tc.want, tc.mode, d)
			}
		})
	}
}

// TestMissingSignal: failures, unknown and stale samples keep the count
// for FallbackAfter-1 cycles, then the fallback; the window holds the last
// value, so the recovery does not read the outage as zero.
func TestMissingSignal(t *testing.T) {
	p := DefaultPolicy()
	p.FallbackReplicas = 2
	stale := signal.Sample{Known: true, Value: 0, At: sec(0)}
	unknown := signal.Sample{Known: false, At: sec(90)}
	run(t, p, &State{}, 6, []step{
		{At: 0, Value: 600, Want: 6}, {At: 10, Value: 600, Want: 6},
		{At: 20, Value: 600, Want: 6}, {At: 30, Value: 600, Want: 6},
		{At: 40, Value: 600, Want: 6}, {At: 50, Value: 600, Want: 6},
		{At: 60, Missing: true, Want: 6, Mode: Fallback},
		{At: 70, Sample: &stale, Want: 6, Mode: Fallback},
		// The third cycle without a value: the fallback, 2.
		{At: 80, Missing: true, Want: 2, Mode: Fallback},
		{At: 90, Sample: &unknown, Want: 2, Mode: Fallback},
		// Back: the window held 600 through the outage: 6 again (a panic,
		// 600 being twice what 2 vreplicas serve).
		{At: 100, Value: 600, Want: 6, Mode: Panic},
	})
}

// TestMissingNeverZeroNorMax: without a fallback count the current count is
// kept however long the signal is missing, even at max or 1.
func TestMissingNeverZeroNorMax(t *testing.T) {
	p := DefaultPolicy()
	for _, cur := range []int32{0, 1, 7, 50} {
		s := &State{}
		for i := 0; i < 20; i++ {
			d := s.Decide(sec(10*i), &p, cur, signal.Sample{}, i%2 == 0)
			if d.Desired != cur || d.Mode != Fallback {
				t.Fatalf("current %d, cycle %d: %d (%v)", cur, i, d.Desired, d.Mode)
			}
		}
	}
}

func TestPause(t *testing.T) {
	p := DefaultPolicy()
	p.Paused = true
	d := (&State{}).Decide(t0, &p, 3, signal.Sample{Known: true, Value: 5000, At: t0}, true)
	if d.Desired != 3 || d.Mode != Paused {
		t.Errorf("frozen: %d %v", d.Desired, d.Mode)
	}
	p.PausedReplicas = 7
	d = (&State{}).Decide(t0, &p, 3, signal.Sample{}, false)
	if d.Desired != 7 || d.Mode != Paused {
		t.Errorf("pinned: %d %v", d.Desired, d.Mode)
	}
}

func TestRateLimitUp(t *testing.T) {
	p := DefaultPolicy()
	p.MaxScaleUpRate = 2
	d := (&State{}).Decide(t0, &p, 3, signal.Sample{Known: true, Value: 5000, At: t0}, true)
	if d.Desired != 6 {
		t.Errorf("ceil(3 x 2) = 6, got %d", d.Desired)
	}
	d = (&State{}).Decide(t0, &p, 0, signal.Sample{Known: true, Value: 5000, At: t0}, true)
	if d.Desired != 2 {
		t.Errorf("from zero, ceil(1 x 2) = 2, got %d", d.Desired)
	}
}

func TestDesiredForRounding(t *testing.T) {
	for _, c := range []struct {
		avg, target float64
		want        int32
	}{{300, 100, 3}, {300.0000000001, 100, 3}, {301, 100, 4}, {0, 100, 0}, {0.7, 0.1, 7}, {1e300, 1e-300, 2147483647}} {
		if got := desiredFor(c.avg, c.target); got != c.want {
			t.Errorf("desiredFor(%v, %v) = %d; want %d", c.avg, c.target, got, c.want)
		}
	}
}

func TestDecideAllocatesNothing(t *testing.T) {
	p := DefaultPolicy()
	s := &State{}
	i := 0
	if n := testing.AllocsPerRun(200, func() {
		i++
		s.Decide(sec(10*i), &p, 3, signal.Sample{Known: true, Value: float64(i % 700), At: sec(10 * i), Partitions: 12}, true)
	}); n != 0 {
		t.Errorf("Decide allocates %v times", n)
	}
}

// TestStateSize: the window state stays within 1 KiB a source.
func TestStateSize(t *testing.T) {
	if s := unsafe.Sizeof(State{}); s > 1024 {
		t.Errorf("a State is %d bytes, more than 1 KiB", s)
	}
}

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		d    Decision
		want string
	}{
		{Decision{Current: 2, Desired: 10, Mode: Panic, Known: true, Signal: 1000, StableAverage: 466.66666, StableDesired: 5, PanicAverage: 1000, PanicDesired: 10},
			"2 -> 10 vreplicas (panic): signal 1000, stable average 466.7 asks 5, panic average 1000 asks 10"},
		{Decision{Current: 4, Desired: 4, Mode: Capped, Known: true, Signal: 1000, StableAverage: 1000, StableDesired: 10, PanicAverage: 1000, PanicDesired: 10, Cap: 4},
			"4 -> 4 vreplicas (capped): signal 1000, stable average 1000 asks 10, panic average 1000 asks 10; capped at 4 partition(s)"},
		{Decision{Current: 8, Desired: 8, Known: true, Signal: 0, StableAverage: 480, StableDesired: 5, PanicAverage: 0, Held: HeldByDelay},
			"8 -> 8 vreplicas (stable): signal 0, stable average 480 asks 5, panic average 0 asks 0; decrease held by the scale-down delay"},
		{Decision{Current: 5, Desired: 2, Mode: Fallback, Missing: 3}, "5 -> 2 vreplicas (fallback): no signal for 3 cycle(s)"},
		{Decision{Current: 5, Desired: 7, Mode: Paused}, "5 -> 7 vreplicas (paused): paused by annotation"},
	} {
		if got := c.d.Explain(); got != c.want {
			t.Errorf("Explain() =\n  %s\nwant\n  %s", got, c.want)
		}
	}
}

// TestNoTurningBackWithinAStableWindow: after a decrease an increase waits
// a stable window (unless panicking), and after an increase a decrease
// does too. The panic threshold is out of reach here.
func TestNoTurningBackWithinAStableWindow(t *testing.T) {
	p := DefaultPolicy()
	p.PanicThreshold = 100
	steps := []step{}
	for s := 0; s <= 50; s += 10 {
		steps = append(steps, step{At: s, Value: 500, Want: 5})
	}
	steps = append(steps,
		step{At: 60, Value: 100, Want: 5}, // (5 x 500 + 100) / 6 = 433: 5
		step{At: 70, Value: 100, Want: 4}, // 2200 / 6 = 366.7: 4, a decrease
		// 3700 / 6 = 616.7 asks 7, 10 s after the decrease: held.
		step{At: 80, Value: 2000, Want: 4, Held: HeldByRecentChange},
		step{At: 90, Value: 2000, Want: 4, Held: HeldByRecentChange},  // 866.7: 9
		step{At: 100, Value: 2000, Want: 4, Held: HeldByRecentChange}, // 1116.7: 12
		step{At: 110, Value: 2000, Want: 4, Held: HeldByRecentChange}, // 1366.7: 14
		step{At: 120, Value: 2000, Want: 4, Held: HeldByRecentChange}, // 1683.3: 17
		step{At: 130, Value: 2000, Want: 20},                          // a stable window after the decrease
		// 10,100 / 6 = 1683.3 asks 17, 10 s after the increase: held.
		step{At: 140, Value: 100, Want: 20, Held: HeldByRecentChange},
	)
	run(t, p, &State{}, 5, steps)
}
