package state

import (
	"maps"

	"github.com/vsched/vsched/framework"
)

var _ framework.CheapestCoster = &State{}

// level counts a costed source's cost vector (nil: none) in, delta 1, or
// out, delta -1, of each dimension's levels, and keeps each dimension's
// cheapest level current.
func (c *costs) level(cost []int64, delta int32) {
	if cost == nil {
		return
	}
	if len(c.levels) != len(c.dims) {
		c.levels = make([]map[int64]int32, len(c.dims))
		c.cheap = make([]int64, len(c.dims))
		c.dear = make([]int64, len(c.dims))
	}
	for i, v := range cost {
		if i >= len(c.levels) {
			break
		}
		if c.levels[i] == nil {
			c.levels[i] = map[int64]int32{}
		}
		m := c.levels[i]
		if m[v] += delta; m[v] <= 0 {
			delete(m, v)
		}
		c.cheap[i] = lowestKey(m)
		c.dear[i] = highestKey(m)
	}
}

// lowestKey is m's lowest key, 0 when m is empty. A map holds one key per
// distinct cost, a few in practice.
func lowestKey(m map[int64]int32) int64 {
	first, low := true, int64(0)
	for k := range m {
		if first || k < low {
			first, low = false, k
		}
	}
	return low
}

// highestKey is m's highest key, 0 when m is empty.
func highestKey(m map[int64]int32) int64 {
	high := int64(0)
	for k := range m {
		high = max(high, k)
	}
	return high
}

// dearest is the highest cost per vreplica in dims[dim] of the sources
// counted with a cost, 0 when none.
func (c *costs) dearest(dim int) int64 {
	if dim < 0 || dim >= len(c.dear) {
		return 0
	}
	return c.dear[dim]
}

func cloneLevels(levels []map[int64]int32) []map[int64]int32 {
	if levels == nil {
		return nil
	}
	out := make([]map[int64]int32, len(levels))
	for i, m := range levels {
		out[i] = maps.Clone(m)
	}
	return out
}

// CheapestCost implements framework.CheapestCoster: the lowest cost per
// vreplica in the dimension of every source the state counts, 0 when a
// source declares no cost (its vreplicas cost nothing but their slot) or
// none in the dimension.
func (s *State) CheapestCost(dim int) int64 {
	c := &s.costs
	if dim < 0 || dim >= len(c.cheap) || len(s.sources)+c.others > c.costed {
		return 0
	}
	return c.cheap[dim]
}
