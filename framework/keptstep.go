package framework

import (
	"context"
	"fmt"
)

// A step of a Run that keeps what it can (ScoreInputs, FilterInputs): the
// filters' verdicts per candidate pod, the scores per scope, and per
// scope slot the sum of its kept scores (keptsums.go). A step then filters and
// scores again only the candidates whose inputs changed, and a candidate
// whose inputs did not costs a few comparisons: a source of thousands of
// vreplicas took about 24 candidates times 5 or 6 plugins of look-ups per
// step, when a step changes one pod (issue 21).

// keptFilter is one filter's kept verdicts, per pod slot.
type keptFilter struct {
	in      FilterInputs  // nil: the filter runs at every step
	summed  SummaryFilter // in, when it is one (summaryscorer.go)
	reach   Scope
	summary ScoreSummary
	since   int32 // the step the summary last changed at
	slots   []filterSlot
}

// filterSlot is a kept verdict (st nil: passed) and the step it was
// reached at (0: never).
type filterSlot struct {
	st *Status
	at int32
}

// startKept sets up the kept verdicts of the run's filters and the list
// of the kept scores (startScoreCache set plugins up).
func (c *scoreCache) startKept(filters []FilterPlugin, hint int) {
	if cap(c.filters) < len(filters) {
		c.filters = make([]keptFilter, len(filters))
	}
	c.filters = c.filters[:len(filters)]
	for i, f := range filters {
		kf := &c.filters[i]
		*kf = keptFilter{slots: kf.slots[:0]}
		in, ok := f.(FilterInputs)
		if !ok {
			continue
		}
		if kf.reach = in.FilterReads(); kf.reach <= ScopeZone {
			kf.in = in
			kf.summed, _ = in.(SummaryFilter)
			kf.slots = growCap(kf.slots, hint)
		}
	}
	c.allFiltersKept, c.filterReach = len(filters) > 0, ScopePod
	for i := range c.filters {
		c.allFiltersKept = c.allFiltersKept && c.filters[i].in != nil
		c.filterReach = max(c.filterReach, c.filters[i].reach)
	}
	c.startMasks()
}

// growCap is s with room for n entries.
func growCap[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s
}

// releaseKept clears what the run kept, so that the pooled cache starts
// the next run empty.
func (c *scoreCache) releaseKept() {
	for i := range c.filters {
		kf := &c.filters[i]
		clear(kf.slots)
		kf.slots, kf.in, kf.summed = kf.slots[:0], nil, nil
	}
	clear(c.hot)
}

// growPod gives the pod slot just made its kept verdicts and scores.
func (c *scoreCache) growPod() {
	for i := range c.filters {
		if kf := &c.filters[i]; kf.in != nil {
			kf.slots = append(kf.slots, filterSlot{})
		}
	}
	for b := range c.hot {
		if h := &c.hot[b]; h.scope == ScopePod {
			h.pc.slots = append(h.pc.slots, scoreSlot{})
			h.slots = h.pc.slots
		}
	}
}

// beginFilters asks every kept filter for its summary, before the filters
// run.
func (c *scoreCache) beginFilters(d *Decision) {
	c.filterSince = 0
	for i := range c.filters {
		kf := &c.filters[i]
		if kf.in == nil {
			continue
		}
		if sum := kf.in.FilterSummary(d); kf.since == 0 || sum != kf.summary {
			kf.summary, kf.since = sum, c.step
		}
		c.filterSince = max(c.filterSince, kf.since)
	}
}

// chooseKept is choose for a run that keeps verdicts and scores (no
// explanation): the same winner, found with fewer plugin calls.
func (r *run) chooseKept(ctx context.Context, cands []int32) (int32, error) {
	best, err := r.keptStep(ctx, cands)
	if keptCheck != nil && err == nil {
		keptCheck(ctx, r, cands, best)
	}
	return best, err
}

// keptStep is chooseKept's step.
func (r *run) keptStep(ctx context.Context, cands []int32) (int32, error) {
	d, c := r.d, r.sc
	c.beginFilters(d)
	if cap(c.cands) < len(cands) {
		c.cands = make([]stepCand, len(cands), 2*len(cands))
	}
	feasible, err := r.filterStep(ctx, cands)
	if err != nil {
		return -1, err
	}
	r.feasible, c.cands = feasible, c.cands[:len(feasible)]
	if len(feasible) == 0 {
		return -1, nil
	}
	d.setFeasible(feasible)
	defer d.endStep()
	c.beginScores(d)
	if !c.unkept {
		return r.keptWinner(ctx, feasible)
	}
	totals, err := r.keptTotals(ctx, feasible)
	if err != nil {
		return -1, err
	}
	return r.winner(feasible, totals), nil
}

// filterStep is the candidates that pass every filter, and their
// stepCands (candOf) at the front of c.cands, in order.
func (r *run) filterStep(ctx context.Context, cands []int32) ([]int32, error) {
	d, c := r.d, r.sc
	all, feasible := c.cands[:len(cands)], r.feasible[:0]
	for _, ord := range cands {
		k := &all[len(feasible)]
		c.candOf(d, ord, k)
		// Removing, there is no filter: every holder is feasible.
		if len(r.filters) > 0 && !k.pass {
			pass, err := r.filterKept(ctx, ord, k)
			if err != nil {
				return nil, err
			}
			if !pass {
				continue
			}
			if ps := k.slot[ScopePod]; c.allFiltersKept && ps >= 0 {
				c.keyOf[ps].passAt = c.step
			}
		}
		feasible = append(feasible, ord)
	}
	return feasible, nil
}

// filterKept reports whether the candidate passes every filter, running
// again only the filters whose verdict on it may have changed.
func (r *run) filterKept(ctx context.Context, ord int32, k *stepCand) (bool, error) {
	d, c := r.d, r.sc
	kept, ps, step := c.filters, k.slot[ScopePod], c.step
	d.quiet = true
	for i, f := range r.filters {
		kf := &kept[i]
		var slot *filterSlot
		// A filter not kept has no slots; ps is -1 for a pod without a
		// slot.
		if uint(ps) < uint(len(kf.slots)) {
			slot = &kf.slots[ps]
			if slot.at >= kf.since && k.at[kf.reach&3] < slot.at {
				if slot.st != nil {
					d.quiet = false
					return false, nil
				}
				continue
			}
		}
		var st *Status
		if kf.summed != nil { // SummaryFilter, summaryscorer.go
			st = kf.summed.FilterSummarized(ctx, d, ord, kf.summary)
		} else {
			st = f.Filter(ctx, d, ord)
		}
		if !st.IsSuccess() && !st.IsRejected() {
			d.quiet = false
			return false, fmt.Errorf("%s: pod ordinal %d: %w", d.Key(), ord, st.WithPlugin(f.Name()).AsError())
		}
		if slot != nil {
			*slot = filterSlot{st: st, at: step}
		}
		if st != nil && !st.IsSuccess() {
			d.quiet = false
			return false, nil
		}
	}
	d.quiet = false
	return true, nil
}

// keptTotals is every feasible candidate's total when a score is not kept:
// the kept scores' (keptTotal) plus, every step, the scores of the plugins
// that are not kept.
func (r *run) keptTotals(ctx context.Context, feasible []int32) ([]int64, error) {
	c := r.sc
	if cap(r.totals) < len(feasible) {
		r.totals = make([]int64, len(feasible))
	}
	totals := r.totals[:len(feasible)]
	for j, ord := range feasible {
		t, err := r.keptTotal(ctx, ord, &c.cands[j])
		if err != nil {
			return nil, err
		}
		totals[j] = t
	}
	for i, s := range r.scores {
		if s.weight == 0 || c.plugins[i].in != nil {
			continue
		}
		buf, err := r.score(ctx, s, feasible)
		if err != nil {
			return nil, err
		}
		for j := range buf {
			totals[j] += buf[j].Score * s.weight
		}
	}
	return totals, nil
}

// winner is the feasible candidate with the highest total, ties broken as
// choose breaks them (better).
func (r *run) winner(feasible []int32, totals []int64) int32 {
	top := totals[0]
	for _, t := range totals[1:] {
		top = max(top, t)
	}
	best, bestFree := -1, lazyFree{}
	for j, t := range totals {
		if t != top {
			continue
		}
		if best < 0 || r.better(feasible[j], t, feasible[best], t, &bestFree) {
			best = j
		}
	}
	return feasible[best]
}
