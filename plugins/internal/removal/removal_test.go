package removal

import (
	"math"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

func TestProportional(t *testing.T) {
	tests := []struct {
		name       string
		count, max int32
		want       int64
	}{
		{name: "fullest domain", count: 3, max: 3, want: 100},
		// ceil(100*2/3) = ceil(66.67) = (200+2)/3 = 67
		{name: "two of three rounds up", count: 2, max: 3, want: 67},
		// ceil(100*1/3) = (100+2)/3 = 34
		{name: "one of three rounds up", count: 1, max: 3, want: 34},
		// ceil(100*1/4) = (100+3)/4 = 25: exact shares stay exact
		{name: "exact share", count: 1, max: 4, want: 25},
		// ceil(100*1/1000) = (100+999)/1000 = 1: never 0 while holding
		{name: "tiny share stays above zero", count: 1, max: 1000, want: 1},
		{name: "nothing held", count: 0, max: 5, want: 0},
		{name: "negative count", count: -1, max: 5, want: 0},
		{name: "count above max is clamped", count: 7, max: 5, want: 100},
		{name: "no domain holds anything", count: 0, max: 0, want: 100},
		// (100*(2^31-2) + 2^31-2) / (2^31-1) = 99.99...: no overflow in int64
		{name: "largest counts", count: math.MaxInt32 - 1, max: math.MaxInt32, want: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Proportional(tc.count, tc.max); got != tc.want {
				t.Errorf("Proportional(%d, %d) = %d, want %d", tc.count, tc.max, got, tc.want)
			}
		})
	}
}

func stats(counts ...int32) framework.DomainStats {
	var a Stats
	for _, c := range counts {
		a.Add(c)
	}
	return a.Result()
}

func TestScore(t *testing.T) {
	tests := []struct {
		name    string
		domains []int32
		count   int32
		maxSkew int32
		want    int64
	}{
		// Preferred (fullest, or within MaxSkew): 100 - 50*(Max-c)/MaxSkew;
		// neither nor forbidden: max(1, 9*ceil(100*c/Max)/100).
		// {3,2,2}: from 3 -> {2,2,2}: fullest -> 100
		{name: "fullest", domains: []int32{3, 2, 2}, count: 3, maxSkew: 1, want: 100},
		// from 2 -> {3,1,2} skew 2 > 1 while from 3 gives 0: forbidden
		{name: "forbidden when the fullest keeps MaxSkew", domains: []int32{3, 2, 2}, count: 2, maxSkew: 1, want: 0},
		// MaxSkew 2: from 2 -> skew 2 <= 2: 100 - 50*(3-2)/2 = 75
		{name: "allowed with a larger MaxSkew", domains: []int32{3, 2, 2}, count: 2, maxSkew: 2, want: 75},
		// {5,1}: from 5 -> {4,1} skew 3 > 1, nothing keeps MaxSkew; fullest: 100
		{name: "nothing keeps MaxSkew: proportional", domains: []int32{5, 1}, count: 5, maxSkew: 1, want: 100},
		// {5,1}: from 1 -> {5,0} skew 5 > 1; from 5 -> {4,1} skew 3 > 1
		// too, so nothing is forbidden: max(1, 9*ceil(100*1/5)/100) = max(1, 1) = 1
		{name: "nothing keeps MaxSkew: lighter still proportional", domains: []int32{5, 1}, count: 1, maxSkew: 1, want: 1},
		// {9,8,1}: from 8 -> skew 8 > 1, from 9 too: 9*ceil(100*8/9)/100 = 9*89/100 = 8
		{name: "nothing keeps MaxSkew: the fuller of the rest", domains: []int32{9, 8, 1}, count: 8, maxSkew: 1, want: 8},
		// {2,2,2}: every domain is a fullest -> 100
		{name: "all equal", domains: []int32{2, 2, 2}, count: 2, maxSkew: 1, want: 100},
		{name: "holding nothing", domains: []int32{2, 0}, count: 0, maxSkew: 1, want: 0},
		{name: "no domains", domains: nil, count: 1, maxSkew: 1, want: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Score(stats(tc.domains...), tc.count, tc.maxSkew); got != tc.want {
				t.Errorf("Score(%v, %d, %d) = %d, want %d", tc.domains, tc.count, tc.maxSkew, got, tc.want)
			}
		})
	}
}

// bruteSkewAfterRemove removes one from counts[i] and measures the skew.
func bruteSkewAfterRemove(counts []int32, i int) int32 {
	after := append([]int32(nil), counts...)
	after[i]--
	s := frameworktest.StatsOf(after)
	return s.Max - s.Min
}

func TestStatsAndForbiddenMatchDefinitions(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 5000; iter++ {
		counts := make([]int32, rng.Intn(6))
		for i := range counts {
			counts[i] = int32(rng.Intn(5))
		}
		s := stats(counts...)
		if diff := cmp.Diff(frameworktest.StatsOf(counts), s); diff != "" {
			t.Fatalf("Stats(%v) (-brute +got):\n%s", counts, diff)
		}
		maxSkew := int32(1 + rng.Intn(3))
		best := int32(math.MaxInt32)
		for i, c := range counts {
			if c > 0 {
				best = min(best, bruteSkewAfterRemove(counts, i))
			}
		}
		for i, c := range counts {
			if c <= 0 {
				continue
			}
			after := bruteSkewAfterRemove(counts, i)
			want := after > maxSkew && best <= maxSkew
			if got := Forbidden(s, c, maxSkew); got != want {
				t.Fatalf("Forbidden(%v, %d, MaxSkew %d) = %v, want %v (after %d, best %d)", counts, c, maxSkew, got, want, after, best)
			}
			if sc := Score(s, c, maxSkew); sc < framework.MinScore || sc > framework.MaxScore || (sc == 0) != want {
				t.Fatalf("Score(%v, %d, MaxSkew %d) = %d, forbidden %v", counts, c, maxSkew, sc, want)
			}
		}
	}
}

func TestForbiddenDegenerate(t *testing.T) {
	if Forbidden(framework.DomainStats{}, 1, 1) {
		t.Errorf("Forbidden with no domains = true")
	}
	if Forbidden(stats(3, 0), 0, 1) {
		t.Errorf("Forbidden for a domain holding nothing = true")
	}
}
