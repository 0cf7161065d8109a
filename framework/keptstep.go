package framework

import (
	"context"
	"fmt"
)

// A step of a Run that keeps what it can (ScoreInputs, FilterInputs): the
// filters' verdicts per candidate pod, the scores per scope, and per
// candidate pod the total of its kept scores. A step then filters and
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

// keptTotal is the weighted sum of a candidate pod's kept scores and the
// step it was computed at (0: never).
type keptTotal struct {
	sum int64
	at  int32
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
	c.passAt = growCap(c.passAt[:0], hint)
	c.totals = growCap(c.totals[:0], hint)
	c.kept, c.maxReach = c.kept[:0], ScopePod
	for i := range c.plugins {
		if pc := &c.plugins[i]; pc.in != nil {
			c.kept = append(c.kept, i)
			c.maxReach = max(c.maxReach, pc.reach)
		}
	}
	if cap(c.hot) < len(c.kept) {
		c.hot = make([]hotScore, len(c.kept))
	}
	c.hot = c.hot[:len(c.kept)]
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
	clear(c.totals)
	c.totals = c.totals[:0]
	clear(c.passAt)
	c.passAt = c.passAt[:0]
	clear(c.hot)
}

// growPods gives every pod slot met so far its kept verdicts and total.
func (c *scoreCache) growPods() {
	for len(c.totals) < int(c.npods) {
		c.totals = append(c.totals, keptTotal{})
	}
	for len(c.passAt) < int(c.npods) {
		c.passAt = append(c.passAt, 0)
	}
	for i := range c.filters {
		kf := &c.filters[i]
		if kf.in == nil {
			continue
		}
		for len(kf.slots) < int(c.npods) {
			kf.slots = append(kf.slots, filterSlot{})
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

// passOf is where the step at which the candidate last passed every
// filter is kept, nil when not (a filter is not kept, or no pod slot).
func (c *scoreCache) passOf(k *stepCand) *int32 {
	if ps := k.slot[ScopePod]; c.allFiltersKept && ps >= 0 && int(ps) < len(c.passAt) {
		return &c.passAt[ps]
	}
	return nil
}

// chooseKept is choose for a run that keeps verdicts and scores (no
// explanation): the same winner, found with fewer plugin calls.
func (r *run) chooseKept(ctx context.Context, cands []int32) (int32, error) {
	d, c := r.d, r.sc
	c.beginFilters(d)
	if cap(c.cands) < len(cands) {
		c.cands = make([]stepCand, len(cands), 2*len(cands))
	}
	all := c.cands[:len(cands)]
	for i, ord := range cands {
		c.candOf(d, ord, &all[i])
	}
	c.growPods()
	feasible, err := r.filterStep(ctx, cands, all)
	if err != nil {
		return -1, err
	}
	r.feasible, c.cands = feasible, all[:len(feasible)]
	if len(feasible) == 0 {
		return -1, nil
	}
	d.setFeasible(feasible)
	defer d.endStep()
	totals, err := r.keptTotals(ctx, feasible)
	if err != nil {
		return -1, err
	}
	return r.winner(feasible, totals), nil
}

// filterStep is the candidates that pass every filter, their stepCands
// moved to the front of all, in order.
func (r *run) filterStep(ctx context.Context, cands []int32, all []stepCand) ([]int32, error) {
	feasible := r.feasible[:0]
	if len(r.filters) == 0 { // removing: every holder is feasible
		return append(feasible, cands...), nil
	}
	c := r.sc
	for i, ord := range cands {
		k := &all[i]
		// Every filter kept, and none of their verdicts can have changed
		// since the candidate last passed them all: it passes, at the
		// cost of one look-up rather than one per filter.
		at := c.passOf(k)
		pass := at != nil && *at >= c.filterSince && k.at[c.filterReach&3] < *at
		if !pass {
			var err error
			if pass, err = r.filterKept(ctx, ord, k); err != nil {
				return nil, err
			}
			if pass && at != nil {
				*at = c.step
			}
		}
		if pass {
			all[len(feasible)] = all[i]
			feasible = append(feasible, ord)
		}
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
		if kf.in != nil && ps >= 0 && int(ps) < len(kf.slots) {
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

// keptTotals is every feasible candidate's total: its kept total when no
// kept score's summary changed since and no change reached it, otherwise
// the sum of its kept scores (sumKept), plus, every step, the plugins
// whose scores are not kept.
func (r *run) keptTotals(ctx context.Context, feasible []int32) ([]int64, error) {
	c := r.sc
	since := c.beginScores(r.d)
	if cap(r.totals) < len(feasible) {
		r.totals = make([]int64, len(feasible))
	}
	totals := r.totals[:len(feasible)]
	for j, ord := range feasible {
		k := &c.cands[j]
		var t *keptTotal
		if ps := k.slot[ScopePod]; ps >= 0 && int(ps) < len(c.totals) {
			t = &c.totals[ps]
			if t.at >= since && k.at[c.maxReach&3] < t.at {
				totals[j] = t.sum
				continue
			}
		}
		sum, err := r.sumKept(ctx, ord, k)
		if err != nil {
			return nil, err
		}
		if t != nil {
			*t = keptTotal{sum: sum, at: c.step}
		}
		totals[j] = sum
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

// sumKept is the weighted sum of the candidate's kept scores, scoring
// again those whose inputs changed.
func (r *run) sumKept(ctx context.Context, ord int32, k *stepCand) (int64, error) {
	sum, hot := int64(0), r.sc.hot
	for b := range hot {
		h := &hot[b]
		var slot *scoreSlot
		if si := k.slot[h.scope&3]; si >= 0 && int(si) < len(h.slots) {
			slot = &h.slots[si]
			if slot.at >= h.since && k.at[h.reach&3] < slot.at {
				sum += slot.score * h.weight
				continue
			}
		}
		sc, err := r.rescore(ctx, h.pc, ord, slot)
		if err != nil {
			return 0, err
		}
		sum += sc * h.weight
	}
	return sum, nil
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
