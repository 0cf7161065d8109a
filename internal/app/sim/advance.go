package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/vsched/vsched/autoscaler"
)

// maxAdvanceCycles bounds the autoscaler cycles one advance step runs, as
// maxTrafficTicks bounds a traffic step: a day at a 10s refresh period.
const maxAdvanceCycles = 8640

// advance moves the clock by d as time passes on a cluster. The
// autoscaler's loop (autoscaler.Run) runs a cycle one refresh period after
// its last, whatever started that one (an autoscale, compact or traffic
// step's cycle counts), reading the period in force when the cycle ends;
// so advance runs a cycle at each such time up to the step's end, each
// followed, as for any cycle, by the scheduling of the sources the evictor
// requeued, and then of the sources left pending, which the scheduler
// requeues when room appears. The clock then moves to the step's end.
//
// Its notes are a summary and the notes of the cycles that changed
// something, each prefixed with the clock it ran at; every cycle is in
// the step's cycles with its clock.
func (a *autoscaling) advance(ctx context.Context, d time.Duration) ([]string, []CycleResult, error) {
	clk := a.sim.cluster.Clock()
	end := clk.Now().Add(d)
	var notes, changedNotes []string
	var cycles []CycleResult
	changed := 0
	// The period stays as it is during the step: no configmap step runs
	// in it.
	if !a.next.After(end) && end.Sub(a.next)/a.period() >= maxAdvanceCycles {
		return nil, nil, fmt.Errorf("advance %s runs more than %d autoscaler cycles at refresh-period %s; split it into shorter advance steps or lengthen refresh-period", d, maxAdvanceCycles, a.period())
	}
	for !a.next.After(end) {
		if at := a.next; at.After(clk.Now()) {
			clk.SetTime(at)
		}
		var cn []string
		did, cr, err := a.cycle(ctx, &cn)
		if err != nil {
			return capNotes(append(notes, changedNotes...)), cycles, err
		}
		if err := a.sim.requeue(ctx); err != nil {
			return capNotes(append(notes, changedNotes...)), cycles, err
		}
		at := clk.Since(a.sim.start).String()
		cr.Cycle, cr.Clock = len(cycles)+1, at
		cycles = append(cycles, cr)
		if did {
			changed++
			for _, n := range cn {
				changedNotes = append(changedNotes, "at "+at+": "+n)
			}
		}
	}
	clk.SetTime(end)
	notes = append(notes, advanceSummary(cycles, changed, a.period(), a.next.Sub(a.sim.start)))
	return capNotes(append(notes, changedNotes...)), cycles, nil
}

// advanceSummary says how many cycles an advance step ran, when, and how
// many changed something.
func advanceSummary(cycles []CycleResult, changed int, period, next time.Duration) string {
	switch len(cycles) {
	case 0:
		return fmt.Sprintf("autoscaler: no cycle; its next is due at %s (refresh-period %s)", next, period)
	case 1:
		return fmt.Sprintf("autoscaler: 1 cycle, at %s; %d changed something", cycles[0].Clock, changed)
	}
	return fmt.Sprintf("autoscaler: %d cycles, at %s to %s (refresh-period %s); %d changed something",
		len(cycles), cycles[0].Clock, cycles[len(cycles)-1].Clock, period, changed)
}

// period is the refresh period in force, at least the autoscaler's
// MinTriggerInterval as in its loop.
func (a *autoscaling) period() time.Duration {
	return max(a.sim.live.currentAutoscaler().RefreshPeriod, autoscaler.DefaultMinTriggerInterval)
}

// cycled notes that a cycle ended now: the loop's next is one refresh
// period later.
func (a *autoscaling) cycled() {
	a.next = a.sim.cluster.Clock().Now().Add(a.period())
}
