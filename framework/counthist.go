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

// move records that w of the domains holding from now hold to. A step moves
// a count by one, often the whole entry, which is then renamed in place.
func (h *countHist) move(from, to int32, w int) {
	if from == to || w == 0 {
		return
	}
	c := h.c
	i := 0
	for i < len(c) && c[i].v < from {
		i++
	}
	if i == len(c) || c[i].v != from || c[i].n < w {
		h.add(from, -w)
		h.add(to, w)
		return
	}
	// j: where to stands or would be inserted, next to i when to is
	// next to from.
	j := i + 1
	if to < from {
		j = i - 1
	}
	whole := c[i].n == w
	switch {
	case j >= 0 && j < len(c) && c[j].v == to:
		c[j].n += w
		if whole {
			h.c = append(c[:i], c[i+1:]...)
		} else {
			c[i].n -= w
		}
	case whole && (j < 0 || j >= len(c) || (to > from) == (c[j].v > to)):
		c[i].v = to // nothing stands between from and to
	default:
		h.add(from, -w)
		h.add(to, w)
	}
}

func (h *countHist) reset() { h.c, h.total = h.c[:0], 0 }

// stats summarises the multiset with zeros more domains holding 0 (none
// when zeros <= 0), as statsAcc would over every domain. It reads the two
// lowest and two highest entries only.
func (h *countHist) stats(zeros int) DomainStats {
	if s, ok := h.quickStats(zeros); ok {
		return s
	}
	zeros = max(zeros, 0)
	if h.total+zeros <= 0 {
		return DomainStats{}
	}
	// m: those entries, and the zeros, ascending and merged.
	var m [5]countN
	k := 0
	n := len(h.c)
	zeroDone := zeros == 0
	for i := 0; i < n; i++ {
		if i == 2 && n > 4 {
			i = n - 2
		}
		e := h.c[i]
		if !zeroDone && e.v >= 0 {
			if e.v == 0 {
				e.n += zeros
			} else {
				m[k] = countN{v: 0, n: zeros}
				k++
			}
			zeroDone = true
		}
		m[k] = e
		k++
	}
	if !zeroDone {
		m[k] = countN{v: 0, n: zeros}
		k++
	}
	s := DomainStats{Domains: h.total + zeros, Min: m[0].v, AtMin: m[0].n, Max: m[k-1].v, AtMax: m[k-1].n}
	s.NextMin, s.NextMax = s.Max, s.Min
	if k > 1 {
		s.NextMin, s.NextMax = m[1].v, m[k-2].v
	}
	return s
}

// histRoom is the distinct counts a kept countHist has room for before it
// grows: a spread keeps a few.
const histRoom = 8

// newHists returns n empty countHists sharing one array, each with room
// for histRoom entries: two allocations rather than a few per hist.
func newHists(n int) []countHist {
	s := make([]countHist, n)
	back := make([]countN, n*histRoom)
	for i := range s {
		s[i].c = back[i*histRoom : i*histRoom : (i+1)*histRoom]
	}
	return s
}

// cut returns the first n entries of *block, zeroed by make, and keeps the
// rest there: one allocation for a kept summary's per-domain arrays.
func cut(block *[]int32, n int) []int32 {
	s := (*block)[:n:n]
	*block = (*block)[n:]
	return s
}
