//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/vsched/vsched/e2e/harness"
)

// The triggers of the metrics API scenarios: cpu over the adapter pods'
// requests (10m each). Up: more than 75% of the points of 40s above 50%
// (so never sooner than 30s after usage rises); down: more than 75% of
// the points of 30s below 30% (never sooner than 22.5s after it falls); a
// 40s cooldown per list.
const (
	upWindow, upThreshold     = 40 * time.Second, 75
	downWindow, downThreshold = 30 * time.Second, 75
	triggerCooldown           = 40 * time.Second
	usageMaxReplicas          = 12
)

var (
	upTrigger   = fmt.Sprintf(`{"type":"cpu","usage":50,"threshold":%d,"time":"%v"}`, upThreshold, upWindow)
	downTrigger = fmt.Sprintf(`{"type":"cpu","usage":30,"threshold":%d,"time":"%v"}`, downThreshold, downWindow)
)

// share is the part of d a threshold percent stands for: the least time
// a trigger's points must have been above (below) its usage.
func share(d time.Duration, pct int) time.Duration { return d * time.Duration(pct) / 100 }

// waitScaled waits for the controller's scale-up (or down) line after
// marks, prints how long after from it came, and checks that it came no
// sooner than least.
func (e *env) waitScaled(what string, c *harness.Controller, marks logMarks, up bool, from time.Time, least time.Duration) (harness.LogEntry, time.Time) {
	e.t.Helper()
	l := e.waitLogged(what, marks, scaled(up))[c]
	at := e.loggedAt(l)
	e.figure("%s", at.Sub(from).Round(time.Second).String(), what)
	if at.Sub(from) < least {
		e.t.Errorf("%s: %v; no sooner than %v may it come (%v)", what, at.Sub(from), least, l.Fields["reason"])
	}
	return l, at
}

// startUsageController starts the controller with --metrics-api under the
// triggers policy and places 24 vreplicas (the fit: 3 pods).
func startUsageController(t *testing.T, timeout time.Duration) (*env, *harness.Controller, map[string]int32) {
	e := newEnv(t, timeout, 0)
	c := e.startController("ctrl-0", "--metrics-api")
	e.waitLogged("its promotion", sinceStart(c), startedLeading)
	marks := e.logMarks()
	e.applyAutoscaler(triggersConfig(upTrigger, downTrigger, triggerCooldown, usageMaxReplicas)...)
	e.waitLogged("policy triggers", marks, func(l harness.LogEntry) bool {
		return l.Msg == "autoscaler configuration updated" && l.Fields["policy"] == "triggers"
	})
	want := e.createSourcesTotal(6, 24, 23)
	e.settle("24 vreplicas", fitFor(want), 2*time.Second, nil)
	return e, c, want
}

// TestMetricsAPICPUTriggers: usage measured by metrics-server (simulated by
// kwok from the pods' annotations) drives the cpu triggers. Usage rises to
// 142% of the requests: the StatefulSet grows by the up trigger's formula
// (ceil(1.42 / 0.5 × 3) = 9, or 6 if the rate still averages in the time
// before the rise), no sooner than the trigger's share of its
// window after the rise; with usage still high it grows again (to the
// maximum, 12) no sooner than the cooldown after the first growth; usage
// falls to 10%: it shrinks, no sooner than the down trigger's share of its
// window after the fall, back to the fit (3) and never below it. A watch
// checks that no status ever lacks a vreplica.
func TestMetricsAPICPUTriggers(t *testing.T) {
	e, c, want := startUsageController(t, 12*time.Minute)
	w := e.watchStatuses()

	marks := e.logMarks()
	rose, _ := e.setAllUsage("14200u")
	up1, at1 := e.waitScaled("scale-up after usage rose (the up trigger's share of its window)", c, marks, true, rose, share(upWindow, upThreshold))
	// The size comes from the latest point: 9 once metrics-server's rate
	// shows the whole rise (ceil(1.42 / 0.5 × 3)), less while it still
	// averages in the time before; beyond the fit in any case.
	to, _ := up1.Fields["to"].(float64)
	if to < 6 || to > 9 {
		t.Fatalf("scaled up to %v; want 6 to 9 (at most ceil(1.42 / 0.5 × 3), rounded to the zones): %v", up1.Fields["to"], up1.Fields["reason"])
	}

	// The new pods run as hot as the old ones: the trigger keeps
	// matching, and only the cooldown holds the size.
	grown := int(to)
	e.waitFor("the new adapter pods", func(s *snapshot) bool { return len(s.pods) == grown })
	marks = e.logMarks()
	e.setAllUsage("14200u")
	up2, _ := e.waitScaled("second scale-up after the first (the cooldown)", c, marks, true, at1, triggerCooldown)
	if to := up2.Fields["to"]; to != float64(usageMaxReplicas) {
		t.Errorf("scaled up to %v; want max-replicas %d", to, usageMaxReplicas)
	}

	e.waitFor("12 adapter pods", func(s *snapshot) bool { return len(s.pods) == usageMaxReplicas })
	marks = e.logMarks()
	fell, _ := e.setAllUsage("")
	e.waitScaled("scale-down after usage fell (the down trigger's share of its window)", c, marks, false, fell, share(downWindow, downThreshold))
	e.settle("back to the fit", fitFor(want), 2*time.Second, nil)
	w.check(e)
	if low := w.lowestReplicas(); low < fitReplicas(sum(want)) {
		t.Errorf("the StatefulSet went down to %d replicas; the fit needs %d", low, fitReplicas(sum(want)))
	}
}

// TestMetricsAPIOutage: metrics-server stops. The controller logs that the
// usage is unknown and records a UsageUnavailable Warning Event; the fit
// stays in charge: 30 more vreplicas grow the StatefulSet to their fit and
// are placed, and no status ever lacks a vreplica. metrics-server comes
// back: a UsageAvailable Event.
func TestMetricsAPIOutage(t *testing.T) {
	e, _, want := startUsageController(t, 8*time.Minute)
	// Between the triggers (40%): neither acts.
	e.setAllUsage("4m")
	w := e.watchStatuses()

	stopped := e.usageChange()
	e.cp.StopMetricsServer()
	e.mark("metrics-server stopped")
	e.waitUsageState(stopped, false)

	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("late-%d", i)
		e.createSource(name, 5)
		want[name] = 5
	}
	e.settle("30 more vreplicas without the metrics API", fitFor(want), 2*time.Second, nil)
	w.check(e)

	started := e.usageChange()
	if err := e.cp.StartMetricsServer(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.mark("metrics-server started")
	e.waitUsageState(started, true)
}
