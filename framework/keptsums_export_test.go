package framework

import (
	"context"
	"fmt"
	"slices"
)

// CheckKeptSteps makes every step of a Run that keeps scores check what
// it kept against scoring every candidate afresh: the feasible candidates,
// each one's kept total (the sum of its three slots' sums) against the
// weighted sum of the kept plugins' scores, and the winner against the
// one an explanation's step picks. report receives each difference;
// steps counts the steps checked. It returns the undo.
func CheckKeptSteps(report func(string), steps *int) func() {
	keptCheck = func(ctx context.Context, r *run, cands []int32, best int32) {
		*steps++
		c, d := r.sc, r.d
		feasible := slices.Clone(r.feasible)
		var step StepExplanation
		want, err := r.choose(ctx, cands, &step)
		if err != nil {
			report(fmt.Sprintf("step %d: every candidate: %v", c.step, err))
			return
		}
		if best != want {
			report(fmt.Sprintf("step %d: kept winner %d, every candidate's %d", c.step, best, want))
		}
		var scratch []int32
		for _, ce := range step.Candidates {
			if ce.Feasible {
				scratch = append(scratch, ce.Ordinal)
			}
		}
		if !slices.Equal(feasible, scratch) {
			report(fmt.Sprintf("step %d: kept feasible %v, every candidate's %v", c.step, feasible, scratch))
			return
		}
		d.setFeasible(feasible)
		defer d.endStep()
		for j, ord := range feasible {
			k := &c.cands[j]
			if !k.in {
				continue
			}
			kept := c.keyOf[k.slot[ScopePod]].podSum + c.nodeSums[k.slot[ScopeNode]].sum + c.zoneSums[k.slot[ScopeZone]].sum
			sum := int64(0)
			for _, h := range c.hot {
				sc, _ := h.pc.plugin.Score(ctx, d, ord)
				sum += sc * h.weight
			}
			if kept != sum {
				report(fmt.Sprintf("step %d: pod ordinal %d: kept total %d, scored afresh %d", c.step, ord, kept, sum))
			}
		}
		r.feasible = feasible
	}
	return func() { keptCheck = nil }
}
