package costestimate

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

// TestForgetKeepsTheOthersEstimates: a (200Mi) and b (500Mi) ran together
// for ten rounds; b is forgotten, and one more round measures a alone.
// The rounds b was in keep counting it at its estimate, so a stays at
// 200Mi: dropped from them, b's 500Mi a vreplica would be taken for a's.
func TestForgetKeepsTheOthersEstimates(t *testing.T) {
	e := New(Options{Smoothing: 0.3, Sweeps: 200})
	for range 10 {
		e.Observe([]Pod{
			{Usage: mem("900Mi"), Sources: []Share{{key("a"), 2}, {key("b"), 1}}},
			{Usage: mem("700Mi"), Sources: []Share{{key("a"), 1}, {key("b"), 1}}},
		})
	}
	e.Forget(key("b"))
	if got := e.Cost(key("b")); got != nil {
		t.Errorf("b's estimate once forgotten: %v, want none", got)
	}
	e.Observe([]Pod{{Usage: mem("400Mi"), Sources: []Share{{key("a"), 2}}}})
	if got := float64(memOf(e, "a").Value()) / (1 << 20); math.Abs(got-200) > 0.5 {
		t.Errorf("a = %.2fMi after b was forgotten, want 200Mi", got)
	}
	if diff := cmp.Diff([]types.NamespacedName{key("a")}, e.Known()); diff != "" {
		t.Errorf("Known (-want +got):\n%s", diff)
	}
}

// TestForgetBoundsTheSources: a thousand sources come beside a and go;
// the estimator holds two at a time, and each new one is estimated from
// its own rounds: source i costs 10·(i%50+1)Mi, measured in one round.
func TestForgetBoundsTheSources(t *testing.T) {
	e := New(Options{Smoothing: 1, Sweeps: 200})
	for i := range 1000 {
		k := key(fmt.Sprintf("s%d", i))
		cost := int64(10 * (i%50 + 1))
		e.Observe([]Pod{
			{Usage: mem("200Mi"), Sources: []Share{{key("a"), 1}}},
			{Usage: mem(fmt.Sprintf("%dMi", 200+cost)), Sources: []Share{{key("a"), 1}, {k, 1}}},
		})
		if c := e.Cost(k); c.Memory().Value()>>20 != cost {
			got := c.Memory().Value() >> 20
			t.Fatalf("source %d: estimated %dMi, want %dMi", i, got, cost)
		}
		e.Forget(k)
	}
	if n := len(e.idx.keys); n > 2 {
		t.Errorf("%d source ids after the churn; want at most 2", n)
	}
	for name, s := range e.sys {
		if len(s.gram) > 4 || len(s.rhs) > 2 || len(s.x) > 2 {
			t.Errorf("%s: %d gram entries, %d rhs, %d x after the churn; want at most 4, 2, 2", name, len(s.gram), len(s.rhs), len(s.x))
		}
	}
	if len(e.idx.seen) > 4 || len(e.idx.neighbours) > 2 {
		t.Errorf("%d pairs seen, %d neighbour lists after the churn", len(e.idx.seen), len(e.idx.neighbours))
	}
}

// TestMeasuredForget: the published estimate goes at once.
func TestMeasuredForget(t *testing.T) {
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	m := NewMeasured(MeasuredOptions{Options: Options{Smoothing: 1}, Now: func() time.Time { return now }})
	m.Observe([]Pod{{Usage: mem("300Mi"), Sources: []Share{{key("a"), 1}, {key("b"), 1}}}, {Usage: mem("100Mi"), Sources: []Share{{key("a"), 1}}}}, now)
	if m.EstimatedCost(key("b")) == nil {
		t.Fatal("b has no estimate")
	}
	m.Forget(key("b"), key("unknown"))
	if got := m.EstimatedCost(key("b")); got != nil {
		t.Errorf("b's estimate once forgotten: %v, want none", got)
	}
	if c := m.EstimatedCost(key("a")); c.Memory().Value()>>20 != 100 {
		got := c.Memory().Value() >> 20
		t.Errorf("a = %dMi, want 100Mi", got)
	}
}
