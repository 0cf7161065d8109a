package framework

import (
	"math/rand"
	"testing"
)

// statsOfCounts is DomainStats from its definition, over every count.
func statsOfCounts(counts []int32) DomainStats {
	var acc statsAcc
	for _, c := range counts {
		acc.addN(c, 1)
	}
	return acc.done()
}

// A countHist's summary, with extra zeros, is the summary of every count it
// holds and the zeros, as counts come and go in random order.
func TestCountHistStats(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := range 2000 {
		var h countHist
		var counts []int32
		for step := range 1 + rng.Intn(40) {
			if len(counts) > 0 && rng.Intn(3) == 0 {
				i := rng.Intn(len(counts))
				h.add(counts[i], -1)
				counts = append(counts[:i], counts[i+1:]...)
			} else {
				v := rng.Int31n(12) - 2
				h.add(v, 1)
				counts = append(counts, v)
			}
			zeros := rng.Intn(4) - 1
			all := append([]int32(nil), counts...)
			for range max(zeros, 0) {
				all = append(all, 0)
			}
			if got, want := h.stats(zeros), statsOfCounts(all); got != want {
				t.Fatalf("round %d, step %d: stats of %v and %d zeros = %+v, want %+v", round, step, counts, zeros, got, want)
			}
		}
	}
}
