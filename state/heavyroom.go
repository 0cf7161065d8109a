package state

import (
	"slices"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

var _ framework.HeavyRoomCounter = &State{}

// heavyRoom is what HeavyRoom counts, kept as the sources and the pods
// change (costs.heavy; a copy of the state copies it).
type heavyRoom struct {
	// unplaced sums every source's vreplicas not placed yet
	// (source.tallied); waiting[i] the same by their cost in dims[i],
	// sorted by cost.
	unplaced int64
	waiting  [][]costCount
	// places[ord*len(dims)+i] is pod ord's places for the dearest
	// vreplicas in dims[i] times what they cost beyond the cheapest
	// (framework.HeavyFit) as fit[i] measures it, and open[ord] its free
	// slots, both 0 for a pod that holds nothing; placesSum and openSum
	// are their sums. valid says they are current for fit.
	places    []int64
	open      []int64
	placesSum []int64
	openSum   int64
	fit       []framework.HeavyFit
	valid     bool
}

// costCount is how many vreplicas wait at one cost.
type costCount struct {
	cost, n int64
}

func (h heavyRoom) clone() heavyRoom {
	h.waiting = slices.Clone(h.waiting)
	for i := range h.waiting {
		h.waiting[i] = slices.Clone(h.waiting[i])
	}
	h.places = slices.Clone(h.places)
	h.open = slices.Clone(h.open)
	h.placesSum = slices.Clone(h.placesSum)
	h.fit = slices.Clone(h.fit)
	return h
}

// wait adds n vreplicas at the cost (nil: none) to the vreplicas waiting.
func (h *heavyRoom) wait(cost []int64, n int64) {
	if n == 0 {
		return
	}
	h.unplaced += n
	for i := range h.waiting {
		c := int64(0)
		if i < len(cost) {
			c = cost[i]
		}
		w := h.waiting[i]
		at, found := slices.BinarySearchFunc(w, c, func(e costCount, c int64) int { return cmpInt(e.cost, c) })
		switch {
		case found:
			if w[at].n += n; w[at].n == 0 {
				w = slices.Delete(w, at, at+1)
			}
		default:
			w = slices.Insert(w, at, costCount{cost: c, n: n})
		}
		h.waiting[i] = w
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// tallyHeavy counts the source's vreplicas not placed yet, at its cost,
// in place of what they were counted with (old: the cost counted before),
// and measures the touched pods again. recount calls it last.
func (s *State) tallyHeavy(src *source, old []int64, touched []int32) {
	h := &s.costs.heavy
	if len(h.waiting) != len(s.costs.dims) {
		s.retallyHeavy()
	}
	n := max(0, src.vreplicas-src.held)
	if n != src.tallied || !slices.Equal(old, src.counted) {
		h.wait(old, -int64(src.tallied))
		h.wait(src.counted, int64(n))
		src.tallied = n
	}
	if !h.valid {
		return
	}
	if !s.heavyFitsCurrent() {
		h.valid = false
		return
	}
	for i, ord := range touched {
		// recount touches a pod twice when the source holds it before
		// and after: a few entries are searched, not measured twice.
		if len(touched) > 32 || !slices.Contains(touched[:i], ord) {
			s.notePlaces(ord)
		}
	}
}

// untallyHeavy takes a forgotten source out of the vreplicas waiting.
func (s *State) untallyHeavy(src *source) {
	s.costs.heavy.wait(src.counted, -int64(src.tallied))
	src.tallied = 0
}

// retallyHeavy counts every source's waiting vreplicas again, after
// SetPodResources replaced the dimensions.
func (s *State) retallyHeavy() {
	h := &s.costs.heavy
	h.unplaced, h.valid = 0, false
	h.waiting = make([][]costCount, len(s.costs.dims))
	for _, key := range s.Sources() {
		src := s.sources[key]
		h.wait(src.counted, int64(src.tallied))
	}
}

// heavyFit is the heavy room's measure of dims[dim] now.
func (s *State) heavyFit(dim int) framework.HeavyFit {
	return framework.HeavyFit{
		Slots:    int64(s.opts.Capacity),
		Capacity: s.ResourceCapacity(dim),
		Cheapest: s.CheapestCost(dim),
		Dearest:  s.costs.dearest(dim),
	}
}

// heavyFitsCurrent reports whether the pods were measured as the
// dimensions measure now.
func (s *State) heavyFitsCurrent() bool {
	h := &s.costs.heavy
	if len(h.fit) != len(s.costs.dims) {
		return false
	}
	for i := range h.fit {
		if h.fit[i] != s.heavyFit(i) {
			return false
		}
	}
	return true
}

// notePlaces measures one pod again.
func (s *State) notePlaces(ord int32) {
	h := &s.costs.heavy
	if ord < 0 || int(ord) >= len(s.pods) {
		return
	}
	nd := len(s.costs.dims)
	if need := int(ord) + 1; need > len(h.open) {
		h.open = append(h.open, make([]int64, need-len(h.open))...)
		h.places = append(h.places, make([]int64, need*nd-len(h.places))...)
	}
	p := &s.pods[ord]
	// A pod that does not exist (its StatefulSet scaled down, or it was
	// deleted) has no room, as Free says: a decision sees it so.
	in := p.used > 0 && p.exists
	open := int64(0)
	if in {
		open = max(0, p.free(s.opts.Capacity))
	}
	h.openSum += open - h.open[ord]
	h.open[ord] = open
	for i := range nd {
		v := int64(0)
		if in {
			fit := h.fit[i]
			v = fit.Places(open, vsched.CostSum(fit.Capacity, -s.ResourceUsed(ord, i))) * (fit.Dearest - fit.Cheapest)
		}
		at := int(ord)*nd + i
		h.placesSum[i] = vsched.CostSum(h.placesSum[i], v-h.places[at])
		h.places[at] = v
	}
}

// notePodExists measures a pod again once it appears or disappears.
func (s *State) notePodExists(ord int32) {
	if s.costs.heavy.valid && s.heavyFitsCurrent() {
		s.notePlaces(ord)
	}
}

// measurePlaces measures every pod.
func (s *State) measurePlaces() {
	h := &s.costs.heavy
	nd := len(s.costs.dims)
	h.fit = make([]framework.HeavyFit, nd)
	for i := range nd {
		h.fit[i] = s.heavyFit(i)
	}
	h.open, h.places = make([]int64, len(s.pods)), make([]int64, len(s.pods)*nd)
	h.placesSum, h.openSum = make([]int64, nd), 0
	for ord := range s.pods {
		if s.pods[ord].used > 0 && s.pods[ord].exists {
			s.notePlaces(int32(ord))
		}
	}
	h.valid = true
}

// HeavyRoom implements framework.HeavyRoomCounter. The pods' places and
// free slots and the vreplicas waiting are kept as sources and pods
// change; a change of the cheapest or the dearest cost, or of the pods'
// resources, measures every pod again at the next call.
func (s *State) HeavyRoom(dim int, cost int64) framework.HeavyRoom {
	if dim < 0 || dim >= len(s.costs.dims) {
		return framework.HeavyRoom{}
	}
	h := &s.costs.heavy
	if len(h.waiting) != len(s.costs.dims) {
		s.retallyHeavy()
	}
	if !h.valid || !s.heavyFitsCurrent() {
		s.measurePlaces()
	}
	fit := h.fit[dim]
	out := framework.HeavyRoom{Fit: fit, Places: h.placesSum[dim], Open: h.openSum, Unplaced: h.unplaced}
	for _, w := range h.waiting[dim] {
		if w.cost > cost {
			out.Need = vsched.CostSum(out.Need, vsched.CostTimes(saturate(w.n), w.cost-fit.Cheapest))
		}
	}
	return out
}
