package state

import (
	"math/rand"
	"slices"
	"testing"
)

// TestFreed checks freed against its definition (some pod holds less of
// the source after than before) on random entry lists, sorted by ordinal
// (the merge) and not (the search per entry), and on small cases.
func TestFreed(t *testing.T) {
	held := func(es []entry, ord int32) int32 {
		for _, e := range es {
			if e.ord == ord {
				return e.n
			}
		}
		return 0
	}
	want := func(before, after []entry) bool {
		for _, b := range before {
			if held(after, b.ord) < b.n {
				return true
			}
		}
		return false
	}
	cases := []struct {
		name          string
		before, after []entry
		freed         bool
	}{
		{"none", nil, nil, false},
		{"added", []entry{{1, 2}}, []entry{{1, 2}, {3, 1}}, false},
		{"one fewer", []entry{{1, 2}, {3, 1}}, []entry{{1, 2}, {3, 0}}, true},
		{"pod gone", []entry{{1, 2}, {3, 1}}, []entry{{1, 3}}, true},
		{"moved up", []entry{{1, 2}}, []entry{{0, 1}, {1, 2}, {2, 5}}, false},
		{"unsorted", []entry{{3, 1}, {1, 2}}, []entry{{1, 2}, {3, 1}}, false},
	}
	for _, tc := range cases {
		if got := freed(tc.before, tc.after); got != tc.freed {
			t.Errorf("%s: freed(%v, %v) = %v, want %v", tc.name, tc.before, tc.after, got, tc.freed)
		}
	}
	rng := rand.New(rand.NewSource(21))
	list := func(sorted bool) []entry {
		var es []entry
		for ord := range int32(40) {
			if rng.Intn(3) == 0 {
				es = append(es, entry{ord: ord, n: 1 + rng.Int31n(3)})
			}
		}
		if !sorted {
			rng.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		}
		return es
	}
	for i := range 2000 {
		before, after := list(i%3 != 0), list(i%5 != 0)
		if rng.Intn(2) == 0 {
			after = slices.Clone(before)
			if len(after) > 0 && rng.Intn(2) == 0 {
				after[rng.Intn(len(after))].n++
			}
		}
		if got, w := freed(before, after), want(before, after); got != w {
			t.Fatalf("freed(%v, %v) = %v, want %v", before, after, got, w)
		}
	}
}
