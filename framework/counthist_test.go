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
			switch op := rng.Intn(6); {
			case len(counts) > 0 && op == 0:
				i := rng.Intn(len(counts))
				h.add(counts[i], -1)
				counts = append(counts[:i], counts[i+1:]...)
			case len(counts) > 0 && op <= 2:
				// One domain, or every domain holding the value, moves
				// by one or anywhere.
				from := counts[rng.Intn(len(counts))]
				to := from + 1 - 2*rng.Int31n(2)
				if op == 2 {
					to = rng.Int31n(12) - 2
				}
				w := 0
				for i, c := range counts {
					if c == from && (w == 0 || rng.Intn(2) == 0) {
						counts[i] = to
						w++
					}
				}
				h.move(from, to, w)
			default:
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
