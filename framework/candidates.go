package framework

// candidates is the step's pods to evaluate: one per zone or node class
// on the grouped paths (fast), one per cost class for a source with a
// cost (classed), one holder per holder class when removing (holding),
// otherwise every candidate.
func (r *run) candidates(fast, classed bool) []int32 {
	switch {
	case r.holding != nil && r.p.mode == Remove:
		return r.removeClassCandidates()
	case r.zoned:
		return r.zoneCandidates()
	case fast:
		return r.fastCandidates()
	case classed:
		return r.costClassCandidates()
	}
	return r.allCandidates()
}
