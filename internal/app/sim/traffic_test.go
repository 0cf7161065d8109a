package sim

import (
	"context"
	"time"

	"testing"

	"github.com/google/go-cmp/cmp"
)

// trafficBase is a valid scenario whose steps the cases below add to.
const trafficBase = `version: 1
cluster:
  zones: [zone-a, zone-b]
  statefulSet: {replicas: 1, capacity: 2}
autoscaler: {min-replicas: 1, max-replicas: 20}
steps:
`

func parseProblems(data string) []string {
	_, ps := ParseScenario("s.yaml", []byte(data))
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	return got
}

func TestParseTrafficProblems(t *testing.T) {
	tests := []struct {
		name, steps string
		want        []string
	}{
		{"no shape", "  - signal: {source: k/a, to: 3}\n",
			[]string{"s.yaml:7: step 1: signal.shape: required: one of constant, step, ramp, burst"}},
		{"unknown shape", "  - signal: {source: k/a, shape: brust, to: 3, over: 1m}\n",
			[]string{`s.yaml:7: step 1: signal.shape: unknown shape "brust" (did you mean "burst"?); a shape is one of constant, step, ramp, burst`}},
		{"no value", "  - signal: {source: k/a, shape: constant}\n",
			[]string{"s.yaml:7: step 1: signal.to: required: the signal's value after the change"}},
		{"negative", "  - signal: {source: k/a, shape: step, from: -1, to: 3}\n",
			[]string{"s.yaml:7: step 1: signal.to: a signal is never negative (lag or events per second)"}},
		{"burst without length", "  - signal: {source: k/a, shape: burst, to: 3}\n",
			[]string{"s.yaml:7: step 1: signal.over: required for a burst: how long it lasts, such as 2m"}},
		{"bad duration", "  - signal: {source: k/a, shape: ramp, to: 3, over: soon}\n",
			[]string{`s.yaml:7: step 1: signal.over: "soon" is not a duration; write one such as 5m, 90s or 1h30m`}},
		{"bad knobs", "  - signal: {source: k/a, shape: constant, to: 3, noise: 1.5, target: 0, min: 5, max: 2}\n",
			[]string{
				"s.yaml:7: step 1: signal.noise: must be in [0, 1), not 1.5",
				"s.yaml:7: step 1: signal.target: must be above 0, not 0",
				"s.yaml:7: step 1: signal.min: must be in [0, max=2], not 5",
			}},
		{"bad source", "  - signal: {source: nons, shape: constant, to: 3}\n",
			[]string{`s.yaml:7: step 1: signal.source: "nons" is not a source key; write namespace/name`}},
		{"unknown field", "  - signal: {source: k/a, shape: constant, too: 3}\n",
			[]string{
				"s.yaml:7: step 1: signal.too: unknown field (did you mean \"to\"?); signal takes after, from, max, min, noise, over, seed, shape, source, target, to",
				"s.yaml:7: step 1: signal.to: required: the signal's value after the change",
			}},
		{"signal not a mapping", "  - signal: 5\n",
			[]string{"s.yaml:7: step 1: signal: must be a mapping, not a number"}},
		{"traffic not a mapping", "  - traffic: soon\n",
			[]string{"s.yaml:7: step 1: traffic: must be a mapping, not a string"}},
		{"traffic without for", "  - traffic: {every: 10s}\n",
			[]string{"s.yaml:7: step 1: traffic.for: required: how long the traffic runs, such as 10m or 24h"}},
		{"traffic polls too fast", "  - traffic: {for: 1m, every: 10ms}\n",
			[]string{"s.yaml:7: step 1: traffic.every: the polling interval must be at least 1s, not 10ms"}},
		{"traffic too long", "  - traffic: {for: 48h, every: 10s}\n",
			[]string{"s.yaml:7: step 1: traffic.for: 48h0m0s at 10s is 17280 polling intervals, more than 8640; poll less often or split the step"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, parseProblems(trafficBase+tc.steps)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func runTraffic(t *testing.T, data string) *Result {
	t.Helper()
	s, ps := ParseScenario("s.yaml", []byte(data))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	res, _, err := Run(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTrafficWorked checks a small scenario against the numbers worked by
// hand (docs/source-autoscaler.md's formulas, target 100, 10 s buckets):
// at 10 s the lag of 250 gives ceil(250/100) = 3 vreplicas and panic (250
// reaches twice what one vreplica serves); at 30 s the step to 650 gives a
// stable average of (250+250+650)/3 = 383.3 (4) and a panic average of 650
// (7): panicking, the larger wins. With 2 vreplicas a pod, 2 then 4 pods.
func TestTrafficWorked(t *testing.T) {
	res := runTraffic(t, trafficBase+`  - signal: {source: k/a, shape: step, from: 250, to: 650, after: 30s}
  - traffic: {for: 1m, every: 10s}
`)
	tick := func(clock string, pods int32, signal float64, v int32) TrafficTick {
		return TrafficTick{Clock: clock, Pods: pods, Sources: []SignalTick{{Source: "k/a", Signal: signal, VReplicas: v, Mode: "panic"}}}
	}
	want := []TrafficTick{tick("10s", 2, 250, 3), tick("30s", 4, 650, 7), tick("1m0s", 4, 650, 7)}
	last := res.Steps[len(res.Steps)-1]
	if diff := cmp.Diff(want, last.Traffic); diff != "" {
		t.Errorf("ticks (-want +got):\n%s", diff)
	}
	wantNotes := []string{
		"k/a at 10s: 0 -> 3 vreplicas (panic): signal 250, stable average 250 asks 3, panic average 250 asks 3",
		"k/a at 30s: 3 -> 7 vreplicas (panic): signal 650, stable average 383.3 asks 4, panic average 650 asks 7",
	}
	if diff := cmp.Diff(wantNotes, last.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestTrafficWithoutSignal: a traffic step with no signalled source says so
// and moves nothing.
func TestTrafficWithoutSignal(t *testing.T) {
	res := runTraffic(t, trafficBase+"  - traffic: {for: 1m}\n")
	want := []string{"no source has a signal: give one with a signal step"}
	if diff := cmp.Diff(want, res.Steps[0].Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestBurstToRunning measures issue 22's goal: from the start of a burst
// to every new vreplica placed on a Running pod, at most pod start + the
// panic window + one polling interval. Pods start at once in the simulator
// (pod start 0), so the bound is 6 s + 10 s. The burst starts between two
// polls (at 25 s, polls every 10 s) and runs past the step's end.
func TestBurstToRunning(t *testing.T) {
	const panicWindow, polling, podStart = 6 * time.Second, 10 * time.Second, 0
	res := runTraffic(t, trafficBase+`  - signal: {source: k/a, shape: burst, from: 100, to: 1500, after: 25s, over: 5m}
  - traffic: {for: 2m, every: 10s}
`)
	last := res.Steps[len(res.Steps)-1]
	var reached time.Duration = -1
	for _, tk := range last.Traffic {
		at, err := time.ParseDuration(tk.Clock)
		if err != nil {
			t.Fatal(err)
		}
		if at >= 25*time.Second && tk.Sources[0].VReplicas >= 15 && tk.Pending == 0 {
			reached = at - 25*time.Second
			break
		}
	}
	if reached < 0 {
		t.Fatalf("the burst's 15 vreplicas were never all placed: %+v", last.Traffic)
	}
	t.Logf("burst to every new vreplica on a Running pod: %s (bound %s)", reached, podStart+panicWindow+polling)
	if reached > podStart+panicWindow+polling {
		t.Errorf("burst to placed took %s, more than pod start + panic window + polling interval = %s", reached, podStart+panicWindow+polling)
	}
	for _, p := range last.Pods {
		if p.Used > 0 && p.Status != PodOK {
			t.Errorf("pod %s holds %d vreplicas but is %s", p.Name, p.Used, p.Status)
		}
	}
}

// TestNoisyDayKeepsDirection checks issue 22's goal over a simulated day
// of a flat signal with ±30% noise, polled every 10 s: the vreplicas never
// change direction within a stable window (60 s) of their last change.
func TestNoisyDayKeepsDirection(t *testing.T) {
	const stableWindow = time.Minute
	res := runTraffic(t, trafficBase+`  - signal: {source: k/a, shape: constant, to: 600, noise: 0.3, seed: 11}
  - traffic: {for: 24h, every: 10s}
`)
	ticks := res.Steps[len(res.Steps)-1].Traffic
	var lastAt time.Duration
	lastDir, prev, changes := 0, int32(0), 0
	for _, tk := range ticks {
		at, _ := time.ParseDuration(tk.Clock)
		v := tk.Sources[0].VReplicas
		dir := 0
		switch {
		case v > prev:
			dir = 1
		case v < prev:
			dir = -1
		}
		if dir == 0 {
			continue
		}
		if lastDir != 0 && dir != lastDir && at-lastAt < stableWindow {
			t.Errorf("at %s: %d -> %d turns %+d %s after the last change", tk.Clock, prev, v, dir, at-lastAt)
		}
		changes++
		lastAt, lastDir, prev = at, dir, v
	}
	if changes < 2 {
		t.Fatalf("only %d change(s) in a noisy day: the test checks nothing", changes)
	}
	t.Logf("%d changes of the vreplicas over the day", changes)
}
