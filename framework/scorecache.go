package framework

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// The score cache (ScoreInputs): a Run keeps the scores of the plugins that
// say what they read, and a step scores again only the candidates whose
// inputs changed. A source of thousands of vreplicas made each step score
// about 24 candidates with every plugin, 96 calls of some 60 ns, when a step
// changes one pod: the zone spread's scores are one per zone, the node
// spread's one per node, and most of them hold from one step to the next
// (issue 21, 1,000 vreplicas in 1 ms).

// scoreCacheMin is the fewest vreplicas a Run must change to keep scores:
// below it, the summaries asked at every step cost about what the scores
// kept save (a source's first step keeps nothing).
const scoreCacheMin = 16

// scoreCache is one Run's kept scores. Its slices are pooled across Runs:
// every entry is zero when it is in the pool (release resets the ones a Run
// set), so a Run on 6,000 pods neither allocates nor clears them.
type scoreCache struct {
	step    int32
	podAt   []int32 // per ordinal below len: the last step that changed the pod (0: none)
	nodeAt  []int32 // per node index + 1: the last step that changed a pod on it
	zoneAt  []int32 // per zone index + 1
	slotOf  []int32 // per ordinal below len: its pod slot + 1 (0: none yet)
	npods   int32
	ords    []int32        // the ordinals given a pod slot
	placeOf []podPlace     // per pod slot: where the pod is
	changed []int32        // the ordinals with a podAt entry
	cands   []stepCand     // per feasible candidate of the step
	plugins []cachedScores // per run.scores index
}

// cachedScores is one plugin's kept scores. slots are indexed by scope: the
// pod slot, or the node (zone) index + 1, doubled, plus 1 for a candidate.
type cachedScores struct {
	in           ScoreInputs
	scope, reach Scope
	summary      ScoreSummary
	since        int32 // the step the summary last changed at
	slots        []scoreSlot
}

// scoreSlot is a kept score and the step it was computed at (0: never).
type scoreSlot struct {
	score int64
	at    int32
}

var scoreCachePool = sync.Pool{New: func() any { return new(scoreCache) }}

// startScoreCache keeps scores for the run when it changes enough
// vreplicas and a plugin of weight other than 0 says what it reads.
func (r *run) startScoreCache(n int32) {
	if n < scoreCacheMin {
		return
	}
	kept := false
	for _, s := range r.scores {
		kept = kept || (s.inputs != nil && s.weight != 0)
	}
	if !kept {
		return
	}
	c := scoreCachePool.Get().(*scoreCache)
	cl := r.d.cluster
	c.step = 1
	c.podAt = zeroPrefix(c.podAt, int(max(cl.Replicas(), 0)))
	c.slotOf = zeroPrefix(c.slotOf, len(c.podAt))
	c.nodeAt = zeroed(c.nodeAt, cl.NumNodes()+1)
	c.zoneAt = zeroed(c.zoneAt, cl.NumZones()+1)
	// The pods a run keeps scores for are about those it changes and one
	// candidate per node: room for as many, so the lists grow once, not
	// by doubling (allocations per call are a goal too).
	hint := min(len(c.podAt), int(n)+64)
	c.ords, c.placeOf, c.changed = slices.Grow(c.ords, hint), slices.Grow(c.placeOf, hint), slices.Grow(c.changed, hint)
	if cap(c.plugins) < len(r.scores) {
		c.plugins = make([]cachedScores, len(r.scores))
	}
	c.plugins = c.plugins[:len(r.scores)]
	for i, s := range r.scores {
		pc := &c.plugins[i]
		*pc = cachedScores{slots: pc.slots[:0]}
		if s.inputs == nil || s.weight == 0 {
			continue
		}
		pc.scope, pc.reach = s.inputs.ScoreReads()
		if pc.scope > ScopeZone || pc.reach > ScopeZone {
			continue // no scope this runtime knows: scored as before
		}
		pc.in = s.inputs
		pc.reach = max(pc.reach, pc.scope)
		switch pc.scope {
		case ScopeZone:
			pc.slots = zeroedSlots(pc.slots, 2*(cl.NumZones()+1))
		case ScopeNode:
			pc.slots = zeroedSlots(pc.slots, 2*(cl.NumNodes()+1))
		default:
			pc.slots = slices.Grow(pc.slots, hint)
		}
	}
	r.sc = c
}

// zeroPrefix returns s's first n entries, all zero in the pool, in s's
// array when it is large enough.
func zeroPrefix(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func zeroedSlots(s []scoreSlot, n int) []scoreSlot {
	if cap(s) < n {
		return make([]scoreSlot, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// releaseScoreCache resets what the run set and returns the cache to the
// pool.
func (r *run) releaseScoreCache() {
	c := r.sc
	if c == nil {
		return
	}
	r.sc = nil
	for _, ord := range c.changed {
		c.podAt[ord] = 0
	}
	for _, ord := range c.ords {
		c.slotOf[ord] = 0
	}
	c.changed, c.ords, c.placeOf, c.npods = c.changed[:0], c.ords[:0], c.placeOf[:0], 0
	for i := range c.plugins {
		c.plugins[i].in = nil
	}
	scoreCachePool.Put(c)
}

// beginStep notes where the step's feasible candidates' scores are kept,
// and when their inputs last changed. The pods of one node (zone) that are
// alike in being candidates share its slot.
func (c *scoreCache) beginStep(d *Decision, feasible []int32) {
	c.cands = c.cands[:0]
	for _, ord := range feasible {
		c.cands = append(c.cands, c.candOf(d, ord))
	}
}

// noteChange records that the step changed the pod, and starts the next.
func (c *scoreCache) noteChange(d *Decision, ord int32) {
	if ord >= 0 && int(ord) < len(c.podAt) {
		if c.podAt[ord] == 0 {
			c.changed = append(c.changed, ord)
		}
		c.podAt[ord] = c.step
	}
	p := d.place(ord)
	if i := int(p.node) + 1; i >= 0 && i < len(c.nodeAt) {
		c.nodeAt[i] = c.step
	}
	if i := int(p.zone) + 1; i >= 0 && i < len(c.zoneAt) {
		c.zoneAt[i] = c.step
	}
	c.step++
}

// stepCand is where a step's candidate's scores are kept, by scope (the
// pod slot, the node's and the zone's; -1: not kept, an ordinal or domain
// outside the cluster's), and the last step that changed a pod in each
// reach (the pod, its node, its zone).
type stepCand struct {
	slot [3]int32
	at   [3]int32
}

// candOf is the candidate's stepCand.
func (c *scoreCache) candOf(d *Decision, ord int32) stepCand {
	k := stepCand{slot: [3]int32{-1, -1, -1}, at: [3]int32{c.step, c.step, c.step}}
	var p podPlace
	if ord >= 0 && int(ord) < len(c.slotOf) {
		if c.slotOf[ord] == 0 {
			c.npods++
			c.slotOf[ord] = c.npods
			c.ords = append(c.ords, ord)
			c.placeOf = append(c.placeOf, d.place(ord))
		}
		i := c.slotOf[ord] - 1
		k.slot[ScopePod], k.at[ScopePod] = i, c.podAt[ord]
		p = c.placeOf[i]
	} else {
		p = d.place(ord)
	}
	cand := int32(0)
	if p.candidate {
		cand = 1
	}
	if i := p.node + 1; i >= 0 && int(i) < len(c.nodeAt) {
		k.slot[ScopeNode], k.at[ScopeNode] = i<<1|cand, c.nodeAt[i]
	}
	if i := p.zone + 1; i >= 0 && int(i) < len(c.zoneAt) {
		k.slot[ScopeZone], k.at[ScopeZone] = i<<1|cand, c.zoneAt[i]
	}
	return k
}

// keptScores is score for a plugin whose scores the run keeps: the kept
// score of every candidate whose inputs did not change, Score for the others.
func (r *run) keptScores(ctx context.Context, pc *cachedScores, s scorer, feasible []int32) ([]PodScore, error) {
	d, c := r.d, r.sc
	if sum := pc.in.ScoreSummary(d); pc.since == 0 || sum != pc.summary {
		pc.summary, pc.since = sum, c.step
	}
	if cap(r.buf) < len(feasible) {
		r.buf = make([]PodScore, len(feasible))
	}
	buf := r.buf[:len(feasible)]
	if pc.scope == ScopePod {
		for len(pc.slots) < int(c.npods) {
			pc.slots = append(pc.slots, scoreSlot{})
		}
	}
	for j, ord := range feasible {
		k := &c.cands[j]
		var slot *scoreSlot
		if i := k.slot[pc.scope]; i >= 0 && int(i) < len(pc.slots) {
			slot = &pc.slots[i]
		}
		if slot != nil && slot.at >= pc.since && k.at[pc.reach] < slot.at {
			buf[j] = PodScore{Ordinal: ord, Score: slot.score}
			continue
		}
		sc, st := s.plugin.Score(ctx, d, ord)
		if !st.IsSuccess() {
			return nil, fmt.Errorf("%s: pod ordinal %d: %w", d.Key(), ord, st.WithPlugin(s.plugin.Name()).AsError())
		}
		if sc < MinScore || sc > MaxScore {
			return nil, fmt.Errorf("%s: pod ordinal %d: plugin %s returned score %d, outside [%d, %d]",
				d.Key(), ord, s.plugin.Name(), sc, MinScore, MaxScore)
		}
		if slot != nil {
			*slot = scoreSlot{score: sc, at: c.step}
		}
		buf[j] = PodScore{Ordinal: ord, Score: sc}
	}
	return buf, nil
}

// scoresOf is the step's scores of the i-th score plugin: kept ones when
// the run keeps them, otherwise score's.
func (r *run) scoresOf(ctx context.Context, i int, s scorer, feasible []int32) ([]PodScore, error) {
	if r.sc != nil && r.sc.plugins[i].in != nil {
		return r.keptScores(ctx, &r.sc.plugins[i], s, feasible)
	}
	return r.score(ctx, s, feasible)
}
