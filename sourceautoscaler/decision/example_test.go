package decision_test

import (
	"fmt"
	"time"

	"github.com/vsched/vsched/sourceautoscaler/decision"
	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// A source with 2 vreplicas and a lag threshold of 100 sees its lag jump
// from 200 to 1000: the panic window reaches twice what 2 vreplicas serve,
// and the count goes to ceil(1000 / 100) at once.
func ExampleState_Decide() {
	p := decision.DefaultPolicy()
	var s decision.State
	start := time.Unix(1_000_000, 0)
	current := int32(2)
	for i, lag := range []float64{200, 200, 1000} {
		now := start.Add(time.Duration(i) * p.PollingInterval)
		d := s.Decide(now, &p, current, signal.Sample{Known: true, Value: lag, At: now}, true)
		fmt.Printf("lag %v: %d -> %d (%v; stable %.1f, panic %.1f)\n", lag, d.Current, d.Desired, d.Mode, d.StableAverage, d.PanicAverage)
		current = d.Desired
	}
	// Output:
	// lag 200: 2 -> 2 (stable; stable 200.0, panic 200.0)
	// lag 200: 2 -> 2 (stable; stable 200.0, panic 200.0)
	// lag 1000: 2 -> 10 (panic; stable 466.7, panic 1000.0)
}

// Describe gives the numbers of a decision one a line, as `vsched explain`
// shows them: a lag of 450 on 1 vreplica panics (450 >= 2 x 100) and asks
// ceil(450 / 100) = 5.
func ExampleDecision_Describe() {
	p := decision.DefaultPolicy()
	var s decision.State
	now := time.Unix(1_000_000, 0)
	d := s.Decide(now, &p, 1, signal.Sample{Known: true, Value: 450, At: now}, true)
	for _, line := range d.Describe(&p) {
		fmt.Println(line)
	}
	// Output:
	// vreplicas: 1 -> 5, mode panic
	// signal: 450, target 100 per vreplica (activation above 0)
	// stable window 1m0s: average 450, ceil(450 / 100) = 5
	// panic window 6s: average 450, ceil(450 / 100) = 5; panic from 2 x 100 = 200
	// rate limits: from 1, at most 1000 (x1000 up), at least 0 (/2 down); scale-down delay 0s
	// bounds: min 0, max 50; no partition cap applied
}
