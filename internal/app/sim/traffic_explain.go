package sim

import (
	"fmt"
	"io"
	"strings"
)

// VReplicaDecision is the source autoscaler's last decision about a source
// in a traffic step, from sourceautoscaler's Explain.
type VReplicaDecision struct {
	// Clock is when it was made, since the scenario's start.
	Clock string `json:"clock"`
	// Summary is the decision in one line (the source's Event message);
	// Lines its numbers under the source's policy, one a line.
	Summary string   `json:"summary"`
	Lines   []string `json:"lines"`
}

// vreplicaDecisions returns the source autoscaler's last decision about
// each signalled source, after a traffic step; nil after any other step.
func (sim *simulation) vreplicaDecisions(st *Step) map[string]VReplicaDecision {
	if st.Kind != StepTraffic || sim.signals == nil {
		return nil
	}
	out := map[string]VReplicaDecision{}
	for _, k := range sim.signals.keys {
		e, ok := sim.signals.auto.Explain(sim.signals.byKey[k].key)
		if !ok {
			continue
		}
		out[k] = VReplicaDecision{
			Clock:   e.At.Sub(sim.start).String(),
			Summary: e.Decision.Explain(),
			Lines:   e.Decision.Describe(&e.Policy),
		}
	}
	return out
}

// LastVReplicaDecision returns the source autoscaler's last decision
// about source up to step (1-based; 0 or below: any step), and the step
// it was made in; false when it made none.
func LastVReplicaDecision(res *Result, source string, step int) (VReplicaDecision, int, bool) {
	last := len(res.Steps)
	if step > 0 && step < last {
		last = step
	}
	for i := last - 1; i >= 0; i-- {
		if d, ok := res.Steps[i].VReplicas[source]; ok {
			return d, i + 1, true
		}
	}
	return VReplicaDecision{}, 0, false
}

// WriteVReplicaDecision writes the source autoscaler's decision about a
// source, made in step (1-based), for people.
func WriteVReplicaDecision(w io.Writer, source string, step int, d VReplicaDecision) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Source %s: vreplicas decided by the source autoscaler in step %d, at %s\n", source, step, d.Clock)
	for _, l := range d.Lines {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
