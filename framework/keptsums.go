package framework

import (
	"context"
	"math/bits"
)

// The kept step's totals by scope (issue 21, item 4). Every kept score is
// one of a pod slot, a node slot or a zone slot (ScoreInputs' scope), so a
// candidate's total is the sum of three partial sums, one per scope, each
// the weighted sum of that scope's kept scores in the candidate's slot.
// Scoring a slot again moves its sum by the difference with the score it
// kept. A step then costs, per candidate, the three look-ups and the
// scores that are out of date: a change of one plugin's summary scores
// again that plugin's slots only, where summing every kept score of every
// candidate whose total some summary change touched took more than the
// Score calls themselves (18 sums of 5 plugins a step for 1,000
// vreplicas). Each pod slot also keeps the step its scores were last all
// up to date, so that finding which of them may be out of date is a few
// mask operations, not a look-up per plugin.

// keptCheck, when set (by tests only), is called after every kept step
// with its candidates and winner, to check them against scoring every
// candidate.
var keptCheck func(ctx context.Context, r *run, cands []int32, best int32)

// maxKept is the most scores a Run keeps (the bits of a mask); the others
// are scored at every step.
const maxKept = 64

// scopeSum is the weighted sum of the kept scores of one scope in one
// node (zone) slot, and the step at which all of them were last made up
// to date there by a candidate (fresh), so that the other candidates of
// the slot skip checking them again.
type scopeSum struct {
	sum   int64
	fresh int32
}

// startMasks lists the kept scores (c.kept, c.hot) and sets the masks.
func (c *scoreCache) startMasks() {
	c.kept, c.allMask, c.reachMask, c.scopeMask, c.unkept = c.kept[:0], 0, [4]uint64{}, [4]uint64{}, false
	for i := range c.plugins {
		pc := &c.plugins[i]
		if pc.in == nil {
			continue
		}
		b := uint(len(c.kept))
		c.kept = append(c.kept, i)
		c.allMask |= 1 << b
		c.reachMask[pc.reach&3] |= 1 << b
		c.scopeMask[pc.scope&3] |= 1 << b
	}
	if cap(c.hot) < len(c.kept) {
		c.hot = make([]hotScore, len(c.kept))
	}
	c.hot = c.hot[:len(c.kept)]
	for b, i := range c.kept {
		pc := &c.plugins[i]
		c.hot[b] = hotScore{slots: pc.slots, scope: pc.scope & 3, reach: pc.reach & 3, weight: pc.weight, pc: pc}
	}
}

// staleMask is the kept scores of the candidate that may be out of date:
// every one when they were never all scored (k.e, its podKey.evalAt, is
// 0), else those whose reach a step changed since step e (k.stale, set
// by candOf) and those whose summary changed since. The others are up to
// date: a kept score is out of date only when its summary changed after
// it was computed or a change was applied in its reach at or after the
// step it was computed at.
func (c *scoreCache) staleMask(k *stepCand) uint64 {
	switch e := k.e; {
	case e == c.step-1:
		return k.stale | c.nowMask
	case e == 0:
		return k.stale
	default:
		m := k.stale
		for b := range c.hot {
			if c.hot[b].since > e {
				m |= 1 << uint(b)
			}
		}
		return m
	}
}

// keptWinner is winner when every score of weight other than 0 is kept:
// each candidate's total is the sum of its three slots' sums once its
// out of date scores are scored again (refresh), and the best so far is
// kept with its Free, the first tie-break (better).
func (r *run) keptWinner(ctx context.Context, feasible []int32) (int32, error) {
	c, placing := r.sc, r.p.mode != Remove
	step, cands := c.step, c.cands[:len(feasible)]
	keys, nodes, zones := c.keyOf, c.nodeSums, c.zoneSums
	nodeMask, zoneMask, now := c.scopeMask[ScopeNode], c.scopeMask[ScopeZone], c.nowMask
	best, bestT, bestF := int32(-1), int64(0), int32(0)
	for j, ord := range feasible {
		k := &cands[j]
		var t int64
		f := int32(0)
		if k.in {
			pk, n, z := &keys[k.slot[ScopePod]], &nodes[k.slot[ScopeNode]], &zones[k.slot[ScopeZone]]
			m := k.stale | now
			if k.e != step-1 {
				m = c.staleMask(k)
			}
			if n.fresh == step {
				m &^= nodeMask
			}
			if z.fresh == step {
				m &^= zoneMask
			}
			if m != 0 {
				if err := r.refresh(ctx, ord, k, m); err != nil {
					return -1, err
				}
			}
			pk.evalAt, n.fresh, z.fresh = step, step, step
			t, f = pk.podSum+n.sum+z.sum, pk.free
		} else {
			var err error
			if t, err = r.sumOutside(ctx, ord, k); err != nil {
				return -1, err
			}
			if placing {
				f = r.d.Free(ord)
			}
		}
		switch {
		case best >= 0 && t < bestT:
		case best < 0 || t > bestT:
			best, bestT, bestF = ord, t, f
		case !placing:
			best = max(best, ord)
		case f < bestF || (f == bestF && ord < best):
			best, bestF = ord, f
		}
	}
	return best, nil
}

// refresh scores again the candidate's kept scores in m that are out of
// date, moving their slots' sums by the difference. A kept score of a
// node or zone slot may be up to date already, scored again by another
// candidate of the slot.
func (r *run) refresh(ctx context.Context, ord int32, k *stepCand, m uint64) error {
	c := r.sc
	for ; m != 0; m &= m - 1 {
		h := &c.hot[bits.TrailingZeros64(m)]
		si := k.slot[h.scope]
		slot := &h.slots[si]
		if slot.at >= h.since && k.at[h.reach] < slot.at {
			continue
		}
		sc, err := r.rescore(ctx, h.pc, ord, nil)
		if err != nil {
			return err
		}
		c.addToSum(h.scope, si, (sc-slot.score)*h.weight)
		*slot = scoreSlot{score: sc, at: c.step}
	}
	return nil
}

// addToSum moves the sum of the scope's slot si by delta.
func (c *scoreCache) addToSum(scope Scope, si int32, delta int64) {
	switch scope {
	case ScopePod:
		c.keyOf[si].podSum += delta
	case ScopeNode:
		c.nodeSums[si].sum += delta
	default:
		c.zoneSums[si].sum += delta
	}
}

// keptTotal is the weighted sum of the candidate's kept scores, scoring
// again those out of date (keptWinner's, for keptTotals).
func (r *run) keptTotal(ctx context.Context, ord int32, k *stepCand) (int64, error) {
	c := r.sc
	if !k.in {
		return r.sumOutside(ctx, ord, k)
	}
	pk := &c.keyOf[k.slot[ScopePod]]
	if m := c.staleMask(k); m != 0 {
		if err := r.refresh(ctx, ord, k, m); err != nil {
			return 0, err
		}
	}
	pk.evalAt = c.step
	return pk.podSum + c.nodeSums[k.slot[ScopeNode]].sum + c.zoneSums[k.slot[ScopeZone]].sum, nil
}

// sumOutside is keptTotal for a candidate some slot of which is not
// kept (an ordinal or a domain outside the cluster's): every kept score
// is checked, and those of its slots that are kept are kept as refresh
// keeps them.
func (r *run) sumOutside(ctx context.Context, ord int32, k *stepCand) (int64, error) {
	c, sum := r.sc, int64(0)
	for b := range c.hot {
		h := &c.hot[b]
		si := k.slot[h.scope]
		if si < 0 {
			sc, err := r.rescore(ctx, h.pc, ord, nil)
			if err != nil {
				return 0, err
			}
			sum += sc * h.weight
			continue
		}
		if err := r.refresh(ctx, ord, k, 1<<uint(b)); err != nil {
			return 0, err
		}
		sum += h.slots[si].score * h.weight
	}
	return sum, nil
}
