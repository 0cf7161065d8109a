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
	keyOf   []podKey       // per pod slot: its node's and zone's slots, what keptstep.go keeps of it
	changed []int32        // the ordinals with a podAt entry
	cands   []stepCand     // per feasible candidate of the step
	plugins []cachedScores // per run.scores index

	// What keptstep.go keeps: the filters' verdicts per pod slot (the
	// step each pod slot last passed them all is in podKey).
	filters []keptFilter // per run.filters index
	kept    []int        // the indexes in plugins of the kept scores
	hot     []hotScore   // per kept score: what a step reads (since set by beginScores)
	// What keptsums.go keeps: per node (zone) slot, the weighted sum
	// of the node (zone) scoped kept scores there (the pod scoped ones'
	// are in podKey), so that a candidate's total is three look-ups. The
	// masks are sets of kept scores (bit b: hot[b]).
	nodeSums  []scopeSum
	zoneSums  []scopeSum
	nowMask   uint64    // the kept scores whose summary changed at this step
	reachMask [4]uint64 // per reach: the kept scores that read it
	scopeMask [4]uint64 // per scope: the kept scores of that scope
	allMask   uint64
	unkept    bool // a score of weight other than 0 is not kept: scored at every step
	// allFiltersKept says every filter is, so podKey.passAt is kept;
	// filterSince and filterReach are the latest step a filter's summary
	// changed at and the widest reach.
	allFiltersKept bool
	filterReach    Scope
	filterSince    int32
}

// cachedScores is one plugin's kept scores. slots are indexed by scope: the
// pod slot, or the node (zone) index + 1, doubled, plus 1 for a candidate.
type cachedScores struct {
	in           ScoreInputs
	plugin       ScorePlugin
	summed       SummaryScorer // plugin, when it is one (summaryscorer.go)
	weight       int64
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
	for _, f := range r.filters {
		_, declared := f.(FilterInputs)
		kept = kept || declared
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
	c.ords, c.keyOf, c.changed = slices.Grow(c.ords, hint), slices.Grow(c.keyOf, hint), slices.Grow(c.changed, hint)
	if cap(c.plugins) < len(r.scores) {
		c.plugins = make([]cachedScores, len(r.scores))
	}
	c.plugins = c.plugins[:len(r.scores)]
	nkept := 0
	for i, s := range r.scores {
		pc := &c.plugins[i]
		*pc = cachedScores{slots: pc.slots[:0]}
		if s.inputs == nil || s.weight == 0 {
			continue
		}
		pc.scope, pc.reach = s.inputs.ScoreReads()
		if pc.scope > ScopeZone || pc.reach > ScopeZone || nkept == maxKept {
			continue // no scope this runtime knows, or past the masks' bits: scored as before
		}
		nkept++
		pc.in, pc.plugin, pc.weight = s.inputs, s.plugin, s.weight
		pc.summed, _ = s.plugin.(SummaryScorer)
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
	c.zoneSums = zeroed(c.zoneSums, 2*(cl.NumZones()+1))
	c.nodeSums = zeroed(c.nodeSums, 2*(cl.NumNodes()+1))
	c.startKept(r.filters, hint)
	for i, s := range r.scores {
		c.unkept = c.unkept || (s.weight != 0 && c.plugins[i].in == nil)
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
	c.changed, c.ords, c.keyOf, c.npods = c.changed[:0], c.ords[:0], c.keyOf[:0], 0
	for i := range c.plugins {
		c.plugins[i].in, c.plugins[i].plugin, c.plugins[i].summed = nil, nil, nil
	}
	c.releaseKept()
	scoreCachePool.Put(c)
}

// noteChange records that the step changed the pod, and starts the next.
func (c *scoreCache) noteChange(d *Decision, ord int32) {
	if ord >= 0 && int(ord) < len(c.podAt) {
		if c.podAt[ord] == 0 {
			c.changed = append(c.changed, ord)
		}
		c.podAt[ord] = c.step
	}
	if ord >= 0 && int(ord) < len(c.slotOf) {
		if s := c.slotOf[ord]; s > 0 {
			c.keyOf[s-1].free = d.Free(ord)
		}
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
// reach (the pod, its node, its zone). The arrays have a fourth entry so
// that indexing them with a Scope masked by 3 needs no bounds check.
// in says all three slots are kept; then e is the pod slot's evalAt and
// stale the kept scores out of date from what the steps since e changed
// in the candidate's reach (all of them when e is 0), the summaries'
// changes apart (keptsums.go).
type stepCand struct {
	slot  [4]int32
	at    [4]int32
	stale uint64
	e     int32
	in    bool
	pass  bool // passes every filter by its kept verdicts (filterStep)
}

// podKey is where a pod slot's node and zone are: their slots in the
// node (zone) scoped scores and their index in nodeAt (zoneAt), -1 when
// outside the cluster's; and what a step reads of the pod slot, in one
// place: the step at which the candidate last passed every filter
// (passAt, kept when every filter is) and at which its kept scores were
// last all up to date (evalAt; 0: never), the weighted sum of its pod
// scoped kept scores, and the pod's Free (refreshed by noteChange).
type podKey struct {
	nodeSlot, zoneSlot int32
	node, zone         int32
	passAt, evalAt     int32
	free               int32
	podSum             int64
}

// candOf sets k to the candidate's stepCand.
func (c *scoreCache) candOf(d *Decision, ord int32, k *stepCand) {
	if ord < 0 || int(ord) >= len(c.slotOf) {
		*k = c.outsideCand(d, ord)
		return
	}
	s := c.slotOf[ord]
	if s == 0 {
		s = c.newSlot(d, ord)
	}
	pk := &c.keyOf[s-1]
	if pk.node < 0 || pk.zone < 0 {
		*k = c.outsideCand(d, ord)
		k.slot[ScopePod], k.at[ScopePod] = s-1, c.podAt[ord]
		return
	}
	e := pk.evalAt
	atP, atN, atZ := c.podAt[ord], c.nodeAt[pk.node], c.zoneAt[pk.zone]
	k.slot[ScopePod], k.slot[ScopeNode], k.slot[ScopeZone] = s-1, pk.nodeSlot, pk.zoneSlot
	k.at[ScopePod], k.at[ScopeNode], k.at[ScopeZone] = atP, atN, atZ
	k.e, k.in = e, true
	// Every filter kept, and none of their verdicts can have changed
	// since the candidate last passed them all: it passes, at the cost
	// of this look-up rather than one per filter.
	k.pass = c.allFiltersKept && pk.passAt >= c.filterSince && k.at[c.filterReach&3] < pk.passAt
	if e == 0 {
		k.stale = c.allMask
		return
	}
	m := uint64(0)
	if atP >= e {
		m = c.reachMask[ScopePod]
	}
	if atN >= e {
		m |= c.reachMask[ScopeNode]
	}
	if atZ >= e {
		m |= c.reachMask[ScopeZone]
	}
	k.stale = m
}

// newSlot gives the pod (an ordinal below len(slotOf)) a pod slot, with
// its kept verdicts, scores and sums, and returns it plus 1.
func (c *scoreCache) newSlot(d *Decision, ord int32) int32 {
	c.npods++
	c.slotOf[ord] = c.npods
	c.ords = append(c.ords, ord)
	pk := c.keyOfPlace(d.place(ord))
	pk.free = d.Free(ord)
	c.keyOf = append(c.keyOf, pk)
	c.growPod()
	return c.npods
}

// keyOfPlace is the podKey of a pod at p.
func (c *scoreCache) keyOfPlace(p podPlace) podKey {
	k := podKey{nodeSlot: -1, zoneSlot: -1, node: -1, zone: -1}
	cand := int32(0)
	if p.candidate {
		cand = 1
	}
	if i := p.node + 1; i >= 0 && int(i) < len(c.nodeAt) {
		k.nodeSlot, k.node = i<<1|cand, i
	}
	if i := p.zone + 1; i >= 0 && int(i) < len(c.zoneAt) {
		k.zoneSlot, k.zone = i<<1|cand, i
	}
	return k
}

// outsideCand is the stepCand of an ordinal the cache keeps no pod slot
// for: its node's and zone's scores are kept, the pod's never.
func (c *scoreCache) outsideCand(d *Decision, ord int32) stepCand {
	pk := c.keyOfPlace(d.place(ord))
	k := stepCand{slot: [4]int32{-1, pk.nodeSlot, pk.zoneSlot, -1}, at: [4]int32{c.step, c.step, c.step, c.step}}
	if pk.node >= 0 {
		k.at[ScopeNode] = c.nodeAt[pk.node]
	}
	if pk.zone >= 0 {
		k.at[ScopeZone] = c.zoneAt[pk.zone]
	}
	return k
}

// beginScores asks every kept score plugin for its summary, after the
// filters, and sets c.nowMask and the changed ones' since.
func (c *scoreCache) beginScores(d *Decision) {
	c.nowMask = 0
	for b := range c.hot {
		h := &c.hot[b]
		pc := h.pc
		if sum := pc.in.ScoreSummary(d); pc.since == 0 || sum != pc.summary {
			pc.summary, pc.since, h.since = sum, c.step, c.step
			c.nowMask |= 1 << uint(b)
		}
	}
}

// hotScore is a kept score plugin as a step reads it: a copy of its
// cachedScores' fields (slots refreshed when they grow, since when the
// summary changes), so that the loop over candidates and plugins reads
// one array.
type hotScore struct {
	slots        []scoreSlot
	since        int32
	scope, reach Scope // masked by 3
	weight       int64
	pc           *cachedScores
}

// rescore is the plugin's score of the candidate when its kept one (in
// slot, nil: none) is out of date, kept in slot for the next steps.
func (r *run) rescore(ctx context.Context, pc *cachedScores, ord int32, slot *scoreSlot) (int64, error) {
	d := r.d
	// From the step's summary when the plugin is a SummaryScorer
	// (summaryscorer.go); inline, as a wrapper cost a call per score.
	var sc int64
	var st *Status
	if pc.summed != nil {
		sc, st = pc.summed.ScoreSummarized(ctx, d, ord, pc.summary)
	} else {
		sc, st = pc.plugin.Score(ctx, d, ord)
	}
	if !st.IsSuccess() {
		return 0, fmt.Errorf("%s: pod ordinal %d: %w", d.Key(), ord, st.WithPlugin(pc.plugin.Name()).AsError())
	}
	if sc < MinScore || sc > MaxScore {
		return 0, fmt.Errorf("%s: pod ordinal %d: plugin %s returned score %d, outside [%d, %d]",
			d.Key(), ord, pc.plugin.Name(), sc, MinScore, MaxScore)
	}
	if slot != nil {
		*slot = scoreSlot{score: sc, at: r.sc.step}
	}
	return sc, nil
}
