package framework

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

type scorer struct {
	plugin     ScorePlugin
	weight     int64
	normalizer ScoreNormalizer
	inputs     ScoreInputs // nil: its scores are not kept (scorecache.go)
}

// Profile is a built, immutable list of plugins. It is safe for concurrent
// use: all per-decision state lives in the Decision.
type Profile struct {
	mode      Mode
	filters   []FilterPlugin
	scores    []scorer
	preparers []PreparePlugin
	observers []ChangeObserver
	// rebalancers are the filters that can name misplaced vreplicas
	// (Place profiles only).
	rebalancers []Rebalancer
	grouped     bool
	// zoned: grouped, and every plugin also promises ZoneEquivalenceAware.
	zoned bool
	// holderGrouped: every plugin promises HolderEquivalenceAware; the
	// runtime evaluates one holder per holder class (when placing, on the
	// grouped path only).
	holderGrouped bool
	plugins       int
	// costed runs in place of this profile for a source with a cost
	// (WithCosts); nil: none. classed: this is a costed variant whose
	// base was grouped, so it evaluates one pod per cost class; and
	// zoneClassed, per zone on the nodes the source does not use.
	costed      *Profile
	classed     bool
	zoneClassed bool
}

// Mode is the mode the profile was built for.
func (p *Profile) Mode() Mode { return p.mode }

// Grouped reports whether the runtime evaluates one pod per class of
// equivalent candidates (see EquivalenceAware).
func (p *Profile) Grouped() bool { return p.grouped }

// ZoneGrouped reports whether the runtime evaluates one pod per zone for the
// nodes a source does not use, on a cluster that is a ZoneFreeIndex (see
// ZoneEquivalenceAware).
func (p *Profile) ZoneGrouped() bool { return p.zoned }

// HolderGrouped reports whether the runtime evaluates one holder per class
// of equivalent holders (see HolderEquivalenceAware): removing, always;
// placing, on the grouped path (Grouped).
func (p *Profile) HolderGrouped() bool { return p.holderGrouped }

// FilterNames and ScoreNames list the profile's plugins in order.
func (p *Profile) FilterNames() []string {
	out := make([]string, len(p.filters))
	for i, f := range p.filters {
		out[i] = f.Name()
	}
	return out
}

// ScoreNames lists the score plugins with their weights, in order.
func (p *Profile) ScoreNames() []string {
	out := make([]string, len(p.scores))
	for i, s := range p.scores {
		out[i] = fmt.Sprintf("%s(weight %d)", s.plugin.Name(), s.weight)
	}
	return out
}

// Result is what Run did.
type Result struct {
	// Changed is how many vreplicas were placed (removed).
	Changed int32
	// Reason says why Run stopped before n, naming the plugins that
	// rejected pods and how many; "" when it did not.
	Reason string
}

// run is the per-call working set, kept off the Profile so calls can run
// concurrently.
type run struct {
	p       *Profile
	d       *Decision
	filters []FilterPlugin
	scores  []scorer
	skipped map[string]bool

	cands    []int32
	feasible []int32
	totals   []int64
	buf      []PodScore
	queues   [][]int32 // per node: non-holder candidates with free capacity
	keys     []int64   // class keys being collected (buildQueues)
	collect  func(int32) bool
	usedUpTo int32     // the highest ordinal that may hold vreplicas
	want     int32     // how many pods a node's queue needs
	empties  int       // empty pods collected for the node
	tails    nodeTails // the queues' uncollected tails (queuetail.go)
	// heads lists the heads of the queues that are not empty, in node
	// order, and headAt is where each node's head stands there.
	heads  []int32
	headAt []int

	// headsFrom is the node whose queue head the last step may have
	// taken; -1: every queue is to be checked (the first step).
	headsFrom int32

	// The zone-grouped path (zonequeue.go); zoned says it is on.
	zoned      bool
	zoneIdx    ZoneFreeIndex
	nodeIdx    FreeCandidateIndex
	zoneFrom   []int64     // per zone: the ClassKey its walk resumes at
	zoneRepOrd []int32     // per zone: its last representative, -1: none
	used       []zoneQueue // the queues of the nodes the source uses

	// The cost-class path (costclass.go).
	cost costRun

	// The holder classes (holderclasses.go): classes says the run may use
	// them, holding is nil until it does.
	classes bool
	holding *holderClasses

	sc *scoreCache // the kept scores (scorecache.go), nil: none
}

// Run places (for a Place profile) or removes (Remove) up to n vreplicas of
// the decision's source, one at a time, applying each choice to d before the
// next. It stops early when no pod passes the filters (or, removing, when no
// pod holds the source); Result.Reason then says why. An error from a plugin
// (an Error status, a score out of range) aborts with an error naming the
// plugin; the changes already applied to d stay there, and callers should
// drop d. When ex is non-nil every candidate's filter result and scores are
// appended to it; nil costs nothing.
func (p *Profile) Run(ctx context.Context, d *Decision, n int32, ex *Explanation) (Result, error) {
	p = p.forDecision(d)
	if d.mode != p.mode {
		return Result{}, fmt.Errorf("a %s profile cannot run a %s decision", p.mode, d.mode)
	}
	if n <= 0 {
		return Result{}, nil
	}
	d.expectChanges(n) // placedense.go
	r := run{p: p, d: d, filters: p.filters, scores: p.scores, headsFrom: -1}
	if err := r.prepare(ctx); err != nil {
		return Result{}, err
	}
	if ex != nil {
		ex.Mode = p.mode
		ex.Key = d.Key()
		for name := range r.skipped {
			ex.Skipped = append(ex.Skipped, name)
		}
		sort.Strings(ex.Skipped)
	}
	fast := p.grouped && ex == nil && r.capacityEnforced()
	classed := p.classed && ex == nil && r.capacityEnforced()
	if fast {
		r.startFast(n)
	}
	r.classes = p.holderGrouped && ex == nil && (fast || p.mode == Remove)
	r.denseForRemoval(n)
	r.maybeHolderClasses()
	if ex == nil {
		r.startScoreCache(scoreCacheSize(n, classed)) // costclass.go
		defer r.releaseScoreCache()
		r.startGroups() // removegroups.go
	}
	delta := int32(1)
	if p.mode == Remove {
		delta = -1
	}
	var res Result
	for res.Changed < n {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var step *StepExplanation
		if ex != nil {
			ex.Steps = append(ex.Steps, StepExplanation{VReplica: res.Changed + 1, Winner: -1})
			step = &ex.Steps[len(ex.Steps)-1]
		}
		cands := r.candidates(fast, classed)
		best, err := r.choose(ctx, cands, step)
		if err != nil {
			return res, err
		}
		if best < 0 {
			if step != nil || !withoutReason(ctx) {
				res.Reason = r.whyNone(ctx)
			}
			if step != nil {
				step.Reason = res.Reason
			}
			return res, nil
		}
		if step != nil {
			step.Winner = best
			if info, ok := d.cluster.Pod(best); ok {
				step.WinnerPod = info.Name
			}
		}
		r.apply(best, delta)
		for _, o := range p.observers {
			if r.skipped == nil || !r.skipped[o.Name()] {
				o.Changed(d, best, delta)
			}
		}
		res.Changed++
	}
	return res, nil
}

// prepare runs the profile's PreparePlugins and leaves out of the run the
// plugins that asked to be skipped.
func (r *run) prepare(ctx context.Context) error {
	for _, pp := range r.p.preparers {
		st := pp.Prepare(ctx, r.d)
		switch {
		case st.Code() == Skip:
			if r.skipped == nil {
				r.skipped = map[string]bool{}
			}
			r.skipped[pp.Name()] = true
		case !st.IsSuccess():
			return st.WithPlugin(pp.Name()).AsError()
		}
	}
	if r.skipped == nil {
		return nil
	}
	r.filters = nil
	for _, f := range r.p.filters {
		if !r.skipped[f.Name()] {
			r.filters = append(r.filters, f)
		}
	}
	r.scores = nil
	for _, s := range r.p.scores {
		if !r.skipped[s.plugin.Name()] {
			r.scores = append(r.scores, s)
		}
	}
	return nil
}

// capacityEnforced reports whether a filter still rejects full pods after
// Prepare skipped plugins. The fast path drops full pods without asking the
// filters, which only gives the filters' answer while one of them enforces
// capacity.
func (r *run) capacityEnforced() bool {
	if r.skipped == nil {
		return true // finish required one
	}
	for _, f := range r.filters {
		if c, ok := f.(CapacityEnforcer); ok && c.EnforcesCapacity() {
			return true
		}
	}
	return false
}

// startFast builds what the grouped path reads: one queue per node, or,
// when the profile and the cluster allow, the zone-grouped path's.
func (r *run) startFast(n int32) {
	r.collect = r.collectKey
	zi, okZ := r.d.cluster.(ZoneFreeIndex)
	ni, okN := r.d.cluster.(FreeCandidateIndex)
	if r.p.zoned && okZ && okN && walksZones(zi, r.d.cluster.NumZones()) {
		r.zoned, r.zoneIdx, r.nodeIdx = true, zi, ni
		r.buildZoneQueues(n)
		return
	}
	r.buildQueues(n)
}

// allCandidates is every pod that may be chosen: candidates when placing,
// holders when removing.
func (r *run) allCandidates() []int32 {
	if r.p.mode == Remove {
		return r.d.Holders()
	}
	return r.d.cluster.Candidates()
}

// buildQueues lists, per node, the first n candidates that have free
// capacity and hold none of the source, in class order (least free first,
// then lowest ordinal): each vreplica takes at most one of them, and taking
// one leaves the order of the others as it was.
func (r *run) buildQueues(n int32) {
	c := r.d.cluster
	r.queues = make([][]int32, c.NumNodes())
	if idx, ok := c.(FreeCandidateIndex); ok {
		r.usedUpTo, r.want = int32(math.MaxInt32), min(n, tailChunk)
		if up, ok := c.(UsedPrefix); ok {
			r.usedUpTo = up.HighestUsedOrdinal()
		}
		for node := range r.queues {
			r.keys, r.empties, r.tails.cut = r.keys[:0], 0, noCut
			idx.EachFreeCandidate(int32(node), r.collect)
			r.queues[node] = r.firstByKey(n)
			r.noteTail(idx, node, n)
		}
		return
	}
	byNode := make([][]int64, c.NumNodes())
	for _, ord := range c.Candidates() {
		info, ok := c.Pod(ord)
		if !ok || info.NodeIndex < 0 || int(info.NodeIndex) >= len(r.queues) {
			continue
		}
		if key, ok := r.classKey(ord); ok {
			byNode[info.NodeIndex] = append(byNode[info.NodeIndex], key)
		}
	}
	for node, keys := range byNode {
		r.keys = keys
		r.queues[node] = r.firstByKey(n)
	}
}

// classKey orders the members of a class: least free first, then lowest
// ordinal. ok is false for a pod that is in no class (full, or holding the
// source).
func (r *run) classKey(ord int32) (int64, bool) {
	free := r.d.Free(ord)
	if r.d.OnPod(ord) > 0 || free <= 0 {
		return 0, false
	}
	return int64(free)<<32 | int64(ord), true
}

// collectKey adds a pod's class key to r.keys; it is the callback of the
// free-candidate index, made once per run. Past the highest used ordinal
// every pod is empty, and empty pods come in ascending order: once the node
// has r.want empty ones, the walk stops and records where (queuetail.go).
func (r *run) collectKey(ord int32) bool {
	if ord < r.tails.from {
		return true // collected before (refill)
	}
	if ord > r.usedUpTo && r.empties >= int(r.want) {
		r.tails.cut = ord
		return false
	}
	if key, ok := r.classKey(ord); ok {
		r.keys = append(r.keys, key)
		if key>>32 >= int64(r.d.cluster.Capacity()) {
			r.empties++
		}
	}
	return true
}

// firstByKey returns the ordinals of the n smallest keys of r.keys, in
// order. n is usually a few vreplicas and the keys a node's free pods: a
// bounded insertion keeps it linear.
func (r *run) firstByKey(n int32) []int32 {
	if len(r.keys) == 0 {
		return nil
	}
	k := min(int(n), len(r.keys))
	best := r.keys[:0:0]
	if k < len(r.keys) {
		best = make([]int64, 0, k)
		for _, key := range r.keys {
			if len(best) == k && key >= best[k-1] {
				continue
			}
			if len(best) < k {
				best = append(best, key)
			} else {
				best[k-1] = key
			}
			for i := len(best) - 1; i > 0 && best[i] < best[i-1]; i-- {
				best[i], best[i-1] = best[i-1], best[i]
			}
		}
	} else {
		best = r.keys
		slices.Sort(best)
	}
	q := make([]int32, len(best))
	for i, key := range best {
		q[i] = int32(key & 0xffffffff)
	}
	return q
}

// fastCandidates is one representative per class: every candidate holder
// with free capacity, and per node the lowest non-holder with free capacity.
//
// A queue's pods hold none of the source, so the one step that changes a
// pod in it changes its head, the only one a step may choose: after the
// first step only the queue of the node last changed is checked.
func (r *run) fastCandidates() []int32 {
	out := r.holderCandidates(r.cands[:0])
	if r.headsFrom < 0 {
		for i := range r.queues {
			r.advance(i)
		}
		r.listHeads()
	} else if i := int(r.headsFrom); i < len(r.queues) {
		had := len(r.queues[i]) > 0
		r.advance(i)
		if q := r.queues[i]; len(q) > 0 {
			r.heads[r.headAt[i]] = q[0]
		} else if had {
			r.listHeads()
		}
	}
	out = append(out, r.heads...)
	r.cands = out
	return out
}

// holderCandidates appends to out every candidate holder with free
// capacity (each a class of its own for EquivalenceAware), or the first of
// each holder class once the run keeps them (HolderEquivalenceAware).
func (r *run) holderCandidates(out []int32) []int32 {
	if r.holding != nil {
		return r.holding.appendRepresentatives(out)
	}
	return append(out, r.d.RoomHolders()...)
}

// choose filters and scores cands and returns the winner, -1 when none passes.
func (r *run) choose(ctx context.Context, cands []int32, step *StepExplanation) (int32, error) {
	if r.sc != nil && step == nil {
		if r.holding != nil && r.holding.groups != nil {
			return r.chooseGrouped(ctx)
		}
		return r.chooseKept(ctx, cands)
	}
	d := r.d
	feasible := r.feasible[:0]
	var rows []int // index into step.Candidates per feasible pod
	for _, ord := range cands {
		rejected, rejectedBy, err := r.filter(ctx, ord, step == nil)
		if err != nil {
			return -1, err
		}
		if step != nil {
			c := CandidateExplanation{Ordinal: ord, Pod: podName(d, ord), Resources: d.ResourceUse(ord)}
			if rejected != nil {
				c.Rejected = &Rejection{Plugin: rejectedBy, Code: rejected.Code().String(), Reasons: rejected.Reasons()}
			}
			step.Candidates = append(step.Candidates, c)
			if rejected == nil {
				rows = append(rows, len(step.Candidates)-1)
			}
		}
		if rejected == nil {
			feasible = append(feasible, ord)
		}
	}
	r.feasible = feasible
	if len(feasible) == 0 {
		return -1, nil
	}
	d.setFeasible(feasible)
	defer d.endStep()
	if cap(r.totals) < len(feasible) {
		r.totals = make([]int64, len(feasible))
	}
	totals := r.totals[:len(feasible)]
	clear(totals)
	for _, s := range r.scores {
		// A weight-0 plugin cannot change the decision, so it is only
		// evaluated for an explanation, and its failure is recorded there
		// rather than aborting: asking why must not change the answer.
		if s.weight == 0 {
			if step != nil {
				r.explainUncounted(ctx, s, feasible, step, rows)
			}
			continue
		}
		buf, err := r.score(ctx, s, feasible)
		if err != nil {
			return -1, err
		}
		for i := range buf {
			sc := buf[i].Score
			// |sc*weight| <= 100*10 per plugin: the int64 sum cannot
			// overflow for any number of plugins that fits in memory.
			totals[i] += sc * s.weight
			if step != nil {
				c := &step.Candidates[rows[i]]
				c.Scores = append(c.Scores, PluginScore{Plugin: s.plugin.Name(), Score: sc, Weight: int32(s.weight), Weighted: sc * s.weight})
			}
		}
	}
	best, bestFree := 0, lazyFree{}
	for i := 1; i < len(feasible); i++ {
		if r.better(feasible[i], totals[i], feasible[best], totals[best], &bestFree) {
			best = i
		}
	}
	if step != nil {
		for i := range rows {
			step.Candidates[rows[i]].Total = totals[i]
			step.Candidates[rows[i]].Feasible = true
		}
	}
	return feasible[best], nil
}

// score runs one score plugin (and its normalizer) over the feasible pods and
// checks every score is in range. The returned slice is reused by the next
// call.
func (r *run) score(ctx context.Context, s scorer, feasible []int32) ([]PodScore, error) {
	d := r.d
	if cap(r.buf) < len(feasible) {
		r.buf = make([]PodScore, len(feasible))
	}
	buf := r.buf[:len(feasible)]
	for i, ord := range feasible {
		sc, st := s.plugin.Score(ctx, d, ord)
		if !st.IsSuccess() {
			return nil, fmt.Errorf("%s: pod ordinal %d: %w", d.Key(), ord, st.WithPlugin(s.plugin.Name()).AsError())
		}
		buf[i] = PodScore{Ordinal: ord, Score: sc}
	}
	if s.normalizer != nil {
		if st := s.normalizer.NormalizeScores(ctx, d, buf); !st.IsSuccess() {
			return nil, fmt.Errorf("%s: %w", d.Key(), st.WithPlugin(s.plugin.Name()).AsError())
		}
	}
	for i := range buf {
		if sc := buf[i].Score; sc < MinScore || sc > MaxScore {
			return nil, fmt.Errorf("%s: pod ordinal %d: plugin %s returned score %d, outside [%d, %d]",
				d.Key(), buf[i].Ordinal, s.plugin.Name(), sc, MinScore, MaxScore)
		}
	}
	return buf, nil
}

// explainUncounted records a weight-0 plugin's scores in step. A failure is
// recorded against the pods it concerns instead of aborting, since the
// plugin cannot change the decision.
func (r *run) explainUncounted(ctx context.Context, s scorer, feasible []int32, step *StepExplanation, rows []int) {
	name := s.plugin.Name()
	scores := make([]PodScore, len(feasible))
	failed := make([]string, len(feasible))
	for i, ord := range feasible {
		sc, st := s.plugin.Score(ctx, r.d, ord)
		if !st.IsSuccess() {
			failed[i] = st.Code().String() + ": " + st.Message()
		}
		scores[i] = PodScore{Ordinal: ord, Score: sc}
	}
	if s.normalizer != nil {
		if st := s.normalizer.NormalizeScores(ctx, r.d, scores); !st.IsSuccess() {
			for i := range failed {
				failed[i] = "NormalizeScores: " + st.Code().String() + ": " + st.Message()
			}
		}
	}
	for i := range scores {
		ps := PluginScore{Plugin: name, Score: scores[i].Score}
		switch {
		case failed[i] != "":
			ps.Score, ps.Error = 0, failed[i]
		case ps.Score < MinScore || ps.Score > MaxScore:
			ps.Score, ps.Error = 0, fmt.Sprintf("score %d is outside [%d, %d]", scores[i].Score, MinScore, MaxScore)
		}
		c := &step.Candidates[rows[i]]
		c.Scores = append(c.Scores, ps)
	}
}

func podName(d *Decision, ord int32) string {
	if p, ok := d.podNames[ord]; ok && p.PodName != "" {
		return p.PodName
	}
	if info, ok := d.cluster.Pod(ord); ok {
		return info.Name
	}
	return ""
}
