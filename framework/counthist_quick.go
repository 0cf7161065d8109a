package framework

// quickStats is countHist.stats without the merge, for the two shapes a
// kept summary nearly always has: no zeros, or zeros below every count
// held (PodStats' eligible pods holding none, a RoomIndex's untouched
// nodes). ok is false for the others, which stats merges. A large
// decision reads six or seven summaries per step (issue 21): the merge
// cost about 125 instructions each, this about 30.
func (h *countHist) quickStats(zeros int) (s DomainStats, ok bool) {
	c := h.c
	n := len(c)
	if h.total <= 0 || n == 0 {
		return DomainStats{}, false
	}
	lo, hi := c[0], c[n-1]
	s = DomainStats{Domains: h.total, Min: lo.v, AtMin: lo.n, Max: hi.v, AtMax: hi.n, NextMin: hi.v, NextMax: lo.v}
	if n > 1 {
		s.NextMin, s.NextMax = c[1].v, c[n-2].v
	}
	if zeros <= 0 {
		return s, true
	}
	if lo.v <= 0 {
		return DomainStats{}, false
	}
	s.Domains += zeros
	s.Min, s.AtMin, s.NextMin = 0, zeros, lo.v
	if n == 1 {
		s.NextMax = 0
	}
	return s, true
}
