package sourceautoscaler

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/vsched/vsched/sourceautoscaler/signal"
	clocktesting "k8s.io/utils/clock/testing"
)

// flat reports the same lag for every target, measured now: the cost of a
// cycle without the backend's.
type flat struct {
	now   func() time.Time
	value float64
}

func (flat) Name() string { return "flat" }

func (f flat) Fetch(_ context.Context, ts []signal.Target, out []signal.Sample) error {
	now := f.now()
	for i := range ts {
		out[i] = signal.Sample{Known: true, Value: f.value, At: now, Partitions: 12}
	}
	return nil
}

// BenchmarkCycle10000Sources: one cycle deciding 10,000 sources in the
// steady state (every source due, nothing to write). The goal is at most
// 10 ms of CPU and no allocation a source (allocs/op stays a handful
// whatever the number of sources).
func BenchmarkCycle10000Sources(b *testing.B) {
	const n = 10_000
	clk := clocktesting.NewFakeClock(t0)
	a, err := New(Options{Providers: []signal.Provider{flat{now: clk.Now, value: 300}}, Writer: newRecorder(), Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		_ = a.Upsert(Source{Key: key(i), VReplicas: 3})
	}
	ctx := context.Background()
	for i := 0; i < 10; i++ { // warm: every buffer at its size
		a.Cycle(ctx)
		clk.Step(10 * time.Second)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if st := a.Cycle(ctx); st.Due != n || st.Written != 0 {
			b.Fatalf("%+v", st)
		}
		clk.Step(10 * time.Second)
	}
	// CPU time, not wall time: on a shared machine the wall time counts
	// the waits for a core.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCycleAllocationsDoNotGrowWithSources: the steady-state cycle
// allocates the same for 10 sources as for 2,000 (the buffers are reused).
func TestCycleAllocationsDoNotGrowWithSources(t *testing.T) {
	allocs := func(n int) float64 {
		clk := clocktesting.NewFakeClock(t0)
		a, err := New(Options{Providers: []signal.Provider{flat{now: clk.Now, value: 300}}, Writer: newRecorder(), Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			_ = a.Upsert(Source{Key: key(i), VReplicas: 3})
		}
		ctx := context.Background()
		for i := 0; i < 10; i++ {
			a.Cycle(ctx)
			clk.Step(10 * time.Second)
		}
		return testing.AllocsPerRun(20, func() {
			a.Cycle(ctx)
			clk.Step(10 * time.Second)
		})
	}
	if few, many := allocs(10), allocs(2000); many > few {
		t.Errorf("a cycle allocates %v times for 10 sources and %v for 2,000", few, many)
	}
}
