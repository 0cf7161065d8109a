package framework

import "context"

// Removing by holder group: a removing step that keeps scores (scorecache.go)
// evaluates the holder classes a group at a time, where a group is the
// classes of one node, zone and candidacy (the holder class without the
// count). The node- and zone-scoped scores are one per group, so only the
// pod-scoped ones (ScopePod: the pod spread, the ordinal) tell its classes
// apart, and the group's best class by those stays the best until a change
// reaches the group or a pod-scoped summary changes. A step then sums the
// node- and zone-scoped scores once per group and reads each group's best,
// rather than summing every class's scores: with a spread removal every
// step changes the node and zone summaries, so every class was summed
// again, about 30 of them per step for a source on 12 nodes (issue 21,
// removing 10,000 vreplicas in 10 ms).
//
// The winner is the one chooseKept finds. A removing step ranks by total,
// then by the higher ordinal (run.better), a total order; within a group
// the node- and zone-scoped parts of the totals are equal, so the group's
// best by its pod-scoped part and ordinal is its best by total and
// ordinal, and the best of the groups' bests is the best of all. Each score
// is the kept one under the same rule as chooseKept's (the slot's step is
// at or after its plugin's summary last changed, and no change reached the
// pod's reach since), scored again otherwise.

// holderGroupKey is a holder class's key without the count.
type holderGroupKey struct {
	node, zone       int32
	known, candidate bool
}

// holderGroup is the classes of one group and the best of them by their
// pod-scoped scores, found at step at (0: not yet).
type holderGroup struct {
	classes []int // holder class slots
	at      int32
	best    int32 // the best class's representative
	bestSum int64 // its weighted pod-scoped scores
	outside bool  // a representative had no pod slot: found again every step
	key     podKey
	keyed   bool // key is set (once a member is known)
}

// holderGroups is a run's holder groups, kept by holderClasses when the run
// chooses by group.
type holderGroups struct {
	of      map[holderGroupKey]int
	list    []holderGroup
	groupOf []int   // per holder class slot: its group
	reps    []int32 // the step's feasible holders: one per group
	block   []int   // room for the classes of groups to come
	// The kept score plugins (indexes into scoreCache.hot) by scope, and
	// the widest reach of the pod-scoped ones.
	podScores, domainScores []int
	podReach                Scope
}

// groupRoom is the classes a group has room for before its list grows: a
// group holds a few counts at once.
const groupRoom = 4

// startGroups makes the run choose by holder group when it removes with
// holder classes, keeps scores, has no filter (every holder may be
// removed) and every weighted score plugin's scores are kept.
func (r *run) startGroups() {
	if r.p.mode != Remove || r.holding == nil || r.sc == nil || len(r.filters) > 0 {
		return
	}
	c := r.sc
	for i, s := range r.scores {
		if s.weight != 0 && c.plugins[i].in == nil {
			return
		}
	}
	hc := r.holding
	// Room for as many groups as classes, and for a few classes in each
	// from one array: a run allocates a handful of times, not per group.
	n := len(hc.members)
	ints := make([]int, (groupRoom+1)*n+groupRoom+len(c.kept))
	g := &holderGroups{
		of:      make(map[holderGroupKey]int, n),
		list:    make([]holderGroup, 0, n),
		groupOf: ints[: 0 : n+groupRoom],
		block:   ints[n+groupRoom : (groupRoom+1)*n+groupRoom],
		reps:    make([]int32, 0, n),
	}
	g.podScores = ints[(groupRoom+1)*n+groupRoom:][:0]
	for b, i := range c.kept {
		if pc := &c.plugins[i]; pc.scope == ScopePod {
			g.podScores = append(g.podScores, b)
			g.podReach = max(g.podReach, pc.reach)
		}
	}
	g.domainScores = g.podScores[len(g.podScores):len(g.podScores)]
	for b, i := range c.kept {
		if c.plugins[i].scope != ScopePod {
			g.domainScores = append(g.domainScores, b)
		}
	}
	hc.groups = g
	for s, m := range hc.members { // slot order: deterministic
		if len(m) > 0 {
			k, _ := r.d.holderClassKey(m[0])
			g.add(k, s)
		}
	}
}

// add puts the new class in slot s, of key k, into its group.
func (g *holderGroups) add(k holderClassKey, s int) {
	gk := holderGroupKey{node: k.node, zone: k.zone, known: k.known, candidate: k.candidate}
	i, ok := g.of[gk]
	if !ok {
		i = len(g.list)
		g.of[gk] = i
		var classes []int
		if len(g.block) >= groupRoom {
			classes, g.block = g.block[:0:groupRoom], g.block[groupRoom:]
		}
		g.list = append(g.list, holderGroup{classes: classes, best: -1})
	}
	for len(g.groupOf) <= s {
		g.groupOf = append(g.groupOf, -1)
	}
	g.groupOf[s] = i
	gr := &g.list[i]
	gr.classes = append(gr.classes, s)
	gr.at = 0
}

// remove takes the emptied class in slot s out of its group.
func (g *holderGroups) remove(s int) {
	if s >= len(g.groupOf) || g.groupOf[s] < 0 {
		return
	}
	gr := &g.list[g.groupOf[s]]
	for j, cs := range gr.classes {
		if cs == s {
			gr.classes = append(gr.classes[:j], gr.classes[j+1:]...)
			break
		}
	}
	g.groupOf[s], gr.at = -1, 0
}

// chooseGrouped is chooseKept for a removing run that chooses by holder
// group: the same winner, -1 when the source holds nothing.
func (r *run) chooseGrouped(ctx context.Context) (int32, error) {
	d, c, hc := r.d, r.sc, r.holding
	g := hc.groups
	reps := g.reps[:0]
	for i := range g.list {
		if gr := &g.list[i]; len(gr.classes) > 0 {
			reps = append(reps, hc.rep(gr.classes[0]))
		}
	}
	g.reps = reps
	if len(reps) == 0 {
		return -1, nil
	}
	// One holder per group: the zones of the feasible pods, all that a
	// plugin reads of them (FeasibleZoneStats), are every holder's.
	d.setFeasible(reps)
	defer d.endStep()
	c.beginScores(d)
	podSince := int32(0)
	for _, b := range g.podScores {
		podSince = max(podSince, c.hot[b].since)
	}
	best, bestTotal, n := int32(-1), int64(0), 0
	var k stepCand
	for i := range g.list {
		gr := &g.list[i]
		if len(gr.classes) == 0 {
			continue
		}
		rep := reps[n]
		n++
		if !gr.keyed {
			gr.key, gr.keyed = c.keyOfPlace(d.place(rep)), true
		}
		c.groupCand(gr.key, &k)
		if gr.outside || gr.at == 0 || gr.at < podSince || k.at[ScopeNode] >= gr.at ||
			(g.podReach >= ScopeZone && k.at[ScopeZone] >= gr.at) {
			if err := r.findGroupBest(ctx, gr); err != nil {
				return -1, err
			}
		}
		outer, err := r.sumScores(ctx, g.domainScores, rep, &k)
		if err != nil {
			return -1, err
		}
		if t := outer + gr.bestSum; best < 0 || t > bestTotal || (t == bestTotal && gr.best > best) {
			best, bestTotal = gr.best, t
		}
	}
	return best, nil
}

// groupCand sets k to what the node- and zone-scoped scores of the pods
// at key read: their slots and the last steps their node and zone changed
// at (the current step for a domain outside the cluster's: never kept).
// Every member of a group has the key, so this is candOf for all of them
// without a look-up per member.
func (c *scoreCache) groupCand(key podKey, k *stepCand) {
	*k = stepCand{slot: [4]int32{-1, key.nodeSlot, key.zoneSlot, -1}, at: [4]int32{c.step, c.step, c.step, c.step}}
	if key.node >= 0 {
		k.at[ScopeNode] = c.nodeAt[key.node]
	}
	if key.zone >= 0 {
		k.at[ScopeZone] = c.zoneAt[key.zone]
	}
}

// findGroupBest finds the group's best class by its pod-scoped scores,
// ties going to the higher ordinal.
func (r *run) findGroupBest(ctx context.Context, gr *holderGroup) error {
	c, g := r.sc, r.holding.groups
	gr.best, gr.bestSum, gr.outside = -1, 0, false
	var k stepCand
	for _, s := range gr.classes {
		rep := r.holding.rep(s)
		c.candOf(r.d, rep, &k)
		gr.outside = gr.outside || k.slot[ScopePod] < 0
		sum, err := r.sumScores(ctx, g.podScores, rep, &k)
		if err != nil {
			return err
		}
		if gr.best < 0 || sum > gr.bestSum || (sum == gr.bestSum && rep > gr.best) {
			gr.best, gr.bestSum = rep, sum
		}
	}
	gr.at = c.step
	return nil
}

// sumScores is the weighted sum of the listed kept scores (indexes into
// scoreCache.hot) of the candidate, scoring again those out of date.
func (r *run) sumScores(ctx context.Context, list []int, ord int32, k *stepCand) (int64, error) {
	sum := int64(0)
	for _, b := range list {
		h := &r.sc.hot[b]
		slot, ok := h.kept(k)
		if ok {
			sum += slot.score * h.weight
			continue
		}
		sc, err := r.rescore(ctx, h.pc, ord, slot)
		if err != nil {
			return 0, err
		}
		sum += sc * h.weight
	}
	return sum, nil
}

// kept is where the plugin's score of the candidate is kept (nil: no
// slot) and whether it is current: computed at or after the plugin's
// summary last changed, and no change reached the candidate's reach since
// (sumKept's rule).
func (h *hotScore) kept(k *stepCand) (*scoreSlot, bool) {
	si := k.slot[h.scope&3]
	if si < 0 || int(si) >= len(h.slots) {
		return nil, false
	}
	slot := &h.slots[si]
	return slot, slot.at >= h.since && k.at[h.reach&3] < slot.at
}
