package decision

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// randomPolicy draws a valid policy.
func randomPolicy(r *rand.Rand) Policy {
	p := DefaultPolicy()
	p.Target = float64(1 + r.IntN(500))
	p.ActivationThreshold = float64(r.IntN(3) * 50)
	p.Min = int32(r.IntN(4))
	p.Max = max(1, p.Min+int32(r.IntN(60)))
	p.PollingInterval = time.Duration(1+r.IntN(15)) * time.Second
	p.ScaleDownDelay = time.Duration(r.IntN(40)) * time.Second
	p.ScaleToZeroGrace = time.Duration(r.IntN(60)) * time.Second
	p.MaxScaleUpRate = float64(1 + r.IntN(1000))
	p.MaxScaleDownRate = float64(1 + r.IntN(4))
	p.AllowIdleConsumers = r.IntN(4) == 0
	p.LimitToPartitionsWithLag = r.IntN(3) == 0
	p.EvenDistribution = r.IntN(3) == 0
	p.ExcludePersistentLag = r.IntN(2) == 0
	p.FallbackReplicas = int32(r.IntN(3))
	return p
}

// randomSample draws a sample: often missing, stale or at zero, with bursts.
func randomSample(r *rand.Rand, now time.Time, parts int32) (signal.Sample, bool) {
	s := signal.Sample{Known: r.IntN(10) != 0, At: now, Partitions: parts}
	switch r.IntN(5) {
	case 0:
		s.Value = 0
	case 1:
		s.Value = float64(r.IntN(100_000))
	default:
		s.Value = float64(r.IntN(2000))
	}
	if r.IntN(12) == 0 {
		s.At = now.Add(-time.Hour)
	}
	if parts > 0 {
		s.PartitionsWithLag = int32(r.IntN(int(parts) + 1))
		s.PersistentPartitions = int32(r.IntN(int(s.PartitionsWithLag) + 1))
		s.PersistentLag = s.Value * r.Float64() / 2
	}
	return s, r.IntN(15) != 0
}

// TestProperties runs random policies over random signals and checks on
// every decision: never above the partition cap unless idle consumers are
// allowed (or the minimum is above it), never below the minimum, never
// above the maximum, never to zero from above while the signal is above
// the activation threshold or missing.
func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	for run := 0; run < 300; run++ {
		p := randomPolicy(r)
		parts := int32(r.IntN(20))
		s := &State{}
		cur := int32(r.IntN(10))
		now := t0
		for i := 0; i < 200; i++ {
			now = now.Add(time.Duration(1+r.IntN(20)) * time.Second)
			if r.IntN(100) == 0 {
				now = now.Add(-time.Duration(r.IntN(600)) * time.Second)
			}
			smp, ok := randomSample(r, now, parts)
			d := s.Decide(now, &p, cur, smp, ok)
			checkDecision(t, run, i, &p, smp, cur, d)
			cur = d.Desired
		}
	}
}

func checkDecision(t *testing.T, run, i int, p *Policy, smp signal.Sample, cur int32, d Decision) {
	t.Helper()
	fail := func(what string) {
		t.Fatalf("run %d cycle %d: %s: policy %+v sample %+v current %d decision %+v", run, i, what, *p, smp, cur, d)
	}
	if d.Desired < p.Min {
		fail("below the minimum")
	}
	if d.Desired > p.Max {
		fail("above the maximum")
	}
	if d.Known && smp.Partitions > 0 && !p.AllowIdleConsumers && d.Desired > max(smp.Partitions, p.Min) {
		fail("above the partition cap")
	}
	if cur > 0 && d.Desired == 0 && (!d.Known || d.Signal > p.ActivationThreshold) {
		fail("to zero while the signal is above the activation threshold or missing")
	}
	if d.Mode == Fallback && d.Desired > max(cur, p.FallbackReplicas, p.Min) {
		fail("above the current count and the fallback while the signal is missing")
	}
}
