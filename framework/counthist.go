package framework

// countHist is a multiset of counts, one entry per distinct value, ascending:
// how many domains hold each count. A spread summary (DomainStats) reads
// only its two lowest and two highest values, so a summary kept as a
// countHist changes in O(distinct values) when a domain's count changes and
// is read in O(1), where rebuilding it walks every domain (issue 21: the
// summaries were rebuilt at every step of a large decision).
type countHist struct {
	c     []countN
	total int // the sum of the entries' n
}

// add changes by n (either sign) how many domains hold v. The entries are
// few (a spread keeps the counts close): a linear search beats a binary one.
func (h *countHist) add(v int32, n int) {
	if n == 0 {
		return
	}
	h.total += n
	c := h.c
	i := 0
	for i < len(c) && c[i].v < v {
		i++
	}
	switch {
	case i < len(c) && c[i].v == v:
		c[i].n += n
		if c[i].n == 0 {
			h.c = append(c[:i], c[i+1:]...)
		}
	default:
		h.c = append(c, countN{})
		copy(h.c[i+1:], h.c[i:])
		h.c[i] = countN{v: v, n: n}
	}
}

// move records that one of w domains holding from now holds to.
func (h *countHist) move(from, to int32, w int) {
	if from == to || w == 0 {
		return
	}
	h.add(from, -w)
	h.add(to, w)
}

func (h *countHist) reset() { h.c, h.total = h.c[:0], 0 }

// stats summarises the multiset with zeros more domains holding 0 (none
// when zeros <= 0), as statsAcc would over every domain. It reads at most
// the two lowest and two highest entries.
func (h *countHist) stats(zeros int) DomainStats {
	var acc statsAcc
	acc.addN(0, zeros)
	n := len(h.c)
	for i := 0; i < n; i++ {
		if i == 2 && n > 4 {
			i = n - 2 // skip what is neither of the two lowest nor of the two highest
		}
		acc.addN(h.c[i].v, h.c[i].n)
	}
	s := acc.done()
	if s.Domains > 0 {
		s.Domains = h.total + max(zeros, 0)
	}
	return s
}

// resetHists returns n empty countHists, reusing s's.
func resetHists(s []countHist, n int) []countHist {
	if cap(s) < n {
		s = make([]countHist, n)
	}
	s = s[:n]
	for i := range s {
		s[i].reset()
	}
	return s
}
