package sim

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cycleTimes are the clocks and replicas of a step's autoscaler cycles.
func cycleTimes(st StepResult) []string {
	var out []string
	for _, c := range st.Cycles {
		out = append(out, c.Clock+" "+strconv.Itoa(int(c.Replicas)))
	}
	return out
}

// TestAdvanceRunsTheLoop: an advance step runs a cycle one refresh period
// after the last, whatever ran it (an autoscale step's cycle counts), so a
// stabilization window that ends during it acts at the first cycle past
// its end, not at the next autoscale step.
func TestAdvanceRunsTheLoop(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [a]
  statefulSet: {replicas: 3, capacity: 10}
autoscaler:
  stabilization-window: 2m
  scale-down-cooldown: 0s
steps:
  - schedule: {source: ns/s, vreplicas: 5}
  - advance: 45s
  - autoscale: {}
  - advance: 5m
`)
	want := [][]string{
		nil,
		{"30s 3"}, // the first cycle, one period after the start: one pod would do, the window starts
		nil,
		// 45s + 30s, ... the window (30s to 2m30s) ends between 2m15s and 2m45s.
		{"1m15s 3", "1m45s 3", "2m15s 3", "2m45s 1", "3m15s 1", "3m45s 1", "4m15s 1", "4m45s 1", "5m15s 1", "5m45s 1"},
	}
	for i, w := range want {
		if diff := cmp.Diff(w, cycleTimes(res.Steps[i])); diff != "" {
			t.Errorf("step %d's cycles (-want +got):\n%s", i+1, diff)
		}
	}
	if got := res.Steps[3].Clock; got != "5m45s" {
		t.Errorf("clock after the last advance %s, want 5m45s", got)
	}
	wantNotes := []string{
		"autoscaler: 10 cycles, at 1m15s to 5m45s (refresh-period 30s); 1 changed something",
		"at 2m45s: ScaledDown: scaled from 3 to 1 replicas: idle capacity",
	}
	if diff := cmp.Diff(wantNotes, res.Steps[3].Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestAdvanceFollowsRefreshPeriod: a configmap step's refresh period
// applies from the cycle after the next (the loop's timer was set with the
// old one), and an advance shorter than what is left of the period runs
// no cycle.
func TestAdvanceFollowsRefreshPeriod(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [a]
  statefulSet: {replicas: 1, capacity: 10}
autoscaler:
  refresh-period: 1m
steps:
  - advance: 50s
  - configmap: {name: config-autoscaler, data: {refresh-period: 20s}}
  - advance: 90s
`)
	if got := res.Steps[0].Cycles; len(got) != 0 {
		t.Errorf("advance 50s ran cycles %v; the first is due at 1m", got)
	}
	if diff := cmp.Diff([]string{"autoscaler: no cycle; its next is due at 1m0s (refresh-period 1m0s)"}, res.Steps[0].Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1m0s 1", "1m20s 1", "1m40s 1", "2m0s 1", "2m20s 1"}, cycleTimes(res.Steps[2])); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
}

// TestAdvanceBound: an advance that would run more autoscaler cycles than
// one step may is an error naming the step.
func TestAdvanceBound(t *testing.T) {
	s, ps := ParseScenario("s.yaml", []byte(`version: 1
cluster:
  zones: [a]
  statefulSet: {replicas: 1, capacity: 10}
autoscaler:
  refresh-period: 10s
steps:
  - advance: 25h
`))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	_, _, err := Run(context.Background(), s, Options{})
	want := "s.yaml:8: step 1: advance: advance 25h0m0s runs more than 8640 autoscaler cycles at refresh-period 10s; split it into shorter advance steps or lengthen refresh-period"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant    %s", err, want)
	}
}
