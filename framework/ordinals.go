package framework

import (
	"iter"
	"math/bits"
)

// ordMask is a set of ordinals that may answer yes for one it does not hold
// (ordinals 256 apart share a bit), never no for one it holds.
type ordMask [4]uint64

func (m *ordMask) add(ord int32) {
	u := uint32(ord) & 255
	m[u>>6] |= 1 << (u & 63)
}

func (m *ordMask) has(ord int32) bool {
	u := uint32(ord) & 255
	return m[u>>6]&(1<<(u&63)) != 0
}

// ordCounts maps ordinals to counts: a decision's changes per pod, read for
// every candidate at every step (Decision.Free). Open addressing over the
// few pods a decision changes costs a fraction of a Go map's lookup. An
// entry changed back to 0 stays, with 0.
type ordCounts struct {
	keys  []uint64 // 1<<32 | the ordinal's bits; 0 marks a free slot
	vals  []int32
	n     int
	shift uint8
}

func ordKey(ord int32) uint64 { return 1<<32 | uint64(uint32(ord)) }

// slot is where ord is, or the free slot where it would go.
func (t *ordCounts) slot(ord int32) int {
	k, mask := ordKey(ord), len(t.keys)-1
	i := int((uint32(ord) * 0x9E3779B1) >> t.shift)
	for t.keys[i] != k && t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	return i
}

// get is ord's count, 0 when it has none.
func (t *ordCounts) get(ord int32) int32 {
	if t.n == 0 {
		return 0
	}
	return t.vals[t.slot(ord)] // a free slot's value is 0
}

// add adds v to ord's count.
func (t *ordCounts) add(ord, v int32) {
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	i := t.slot(ord)
	if t.keys[i] == 0 {
		t.keys[i] = ordKey(ord)
		t.n++
	}
	t.vals[i] += v
}

// grow doubles the table (16 slots at first) and puts every entry back.
func (t *ordCounts) grow() {
	keys, vals := t.keys, t.vals
	size := max(16, 2*len(keys))
	t.keys, t.vals, t.n = make([]uint64, size), make([]int32, size), 0
	t.shift = uint8(32 - bits.TrailingZeros(uint(size)))
	for i, k := range keys {
		if k != 0 {
			t.add(int32(uint32(k)), vals[i])
		}
	}
}

// clear empties the table, keeping its slots.
func (t *ordCounts) clear() {
	clear(t.keys)
	clear(t.vals)
	t.n = 0
}

// all yields every ordinal in the table with its count.
func (t *ordCounts) all() iter.Seq2[int32, int32] {
	return func(yield func(int32, int32) bool) {
		for i, k := range t.keys {
			if k != 0 && !yield(int32(uint32(k)), t.vals[i]) {
				return
			}
		}
	}
}
