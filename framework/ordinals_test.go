package framework

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOrdCountsMatchesMap checks the table against a Go map over random
// changes, cleared and reused between rounds, including ordinals that share
// a hash slot and negative ones.
func TestOrdCountsMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var tab ordCounts
	var mask ordMask
	for round := 0; round < 50; round++ {
		want := map[int32]int32{}
		tab.clear()
		mask = ordMask{}
		span := int32(1 + rng.Intn(5000))
		for i := 0; i < rng.Intn(300); i++ {
			ord := int32(rng.Intn(int(span))) - 1
			if rng.Intn(4) == 0 {
				ord = int32(rng.Intn(4)) << 16 // same low bits
			}
			v := int32(rng.Intn(3)) - 1
			want[ord] += v
			tab.add(ord, v)
			mask.add(ord)
		}
		got := map[int32]int32{}
		for ord, v := range tab.all() {
			got[ord] = v
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("round %d: all() (-want +got):\n%s", round, d)
		}
		for ord := int32(-2); ord < span+2; ord++ {
			if tab.get(ord) != want[ord] {
				t.Fatalf("round %d: get(%d) = %d, want %d", round, ord, tab.get(ord), want[ord])
			}
			if _, ok := want[ord]; ok && !mask.has(ord) {
				t.Fatalf("round %d: mask lost %d", round, ord)
			}
		}
	}
}
