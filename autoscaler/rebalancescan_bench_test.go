package autoscaler

import (
	"runtime"
	"testing"
	"time"

	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/state"
)

// BenchmarkRebalanceScanCycle measures the autoscaler's per-cycle search for
// sources to rebalance (descheduler.RebalanceScan) on W2 placed under
// EvenZoneSpread, as BenchmarkRebalanceScan, when 100 sources changed
// since the last cycle (their status observed again) and the cluster's
// shape did not: the search looks at those 100. Only the search is timed,
// not the changes nor the cycle's copy of the state. Run with:
//
//	go test ./autoscaler -run '^$' -bench RebalanceScanCycle -benchtime 20x
func BenchmarkRebalanceScanCycle(b *testing.B) {
	ctx := quiet()
	profiles := profilesFromData(b, growthEvenZoneSpread, nil)
	w := newBenchWorld(b, ctx, profiles)
	w.list(b)
	place := profiles().Place
	var scan descheduler.RebalanceScan
	base := func() *state.State {
		st, err := w.s.CloneLoaded(ctx)
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	if moves := scan.Moves(ctx, place, base(), nil, nil, 100, 10); len(moves) != 0 || !scan.Full {
		b.Fatalf("first scan: %v (full %v), want nothing from a full scan", moves, scan.Full)
	}
	const changed = 100
	next := 0
	var total time.Duration
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < changed; j++ {
			w.s.Observe(w.listed[next%len(w.listed)])
			next++
		}
		st := base()
		start := time.Now()
		moves := scan.Moves(ctx, place, st, nil, nil, 100, 10)
		total += time.Since(start)
		if len(moves) != 0 || scan.Full || scan.Checked != changed {
			b.Fatalf("%v (full %v, looked at %d), want nothing, looking at the %d changed", moves, scan.Full, scan.Checked, changed)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/scan")
}
