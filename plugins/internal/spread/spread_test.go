package spread

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// stats summarises counts the way the framework does, by putting one pod per
// node and the counts on them, so the tests exercise the real DomainStats.
func stats(t *testing.T, counts ...int32) framework.DomainStats {
	t.Helper()
	c := frameworktest.NewCluster(100)
	vp := frameworktest.NewVPod("ns", "src", 0)
	for i, n := range counts {
		name := string(rune('a' + i))
		c.Node(name, "").Pods(name)
		if n > 0 {
			vp.Placements = append(vp.Placements, frameworktest.P(int32(i), n))
		}
	}
	c.UsePlacements(vp.Placements)
	d, err := framework.NewDecision(framework.Place, c, vp, vp.Placements)
	if err != nil {
		t.Fatal(err)
	}
	return d.NodeStats()
}

func TestScore(t *testing.T) {
	cases := []struct {
		name    string
		counts  []int32
		current int32
		maxSkew int32
		allowed bool
		score   int64
	}{
		// Allowed: 100 - 50*(c-Min)/MaxSkew; not: 9*(Max+1-c)/(Max+1).
		// no domains: allowed, c = Min = 0 -> 100
		{name: "no domains", current: 0, maxSkew: 1, allowed: true, score: 100},
		// 0 0 0: c = Min -> 100
		{name: "all empty", counts: []int32{0, 0, 0}, current: 0, maxSkew: 1, allowed: true, score: 100},
		// 1 0 0, add to the 1: skew 2 > 1 -> 9*(2-1)/2 = 4
		{name: "would exceed", counts: []int32{1, 0, 0}, current: 1, maxSkew: 1, allowed: false, score: 4},
		// 1 0 0, add to a 0: c = Min -> 100
		{name: "emptiest", counts: []int32{1, 0, 0}, current: 0, maxSkew: 1, allowed: true, score: 100},
		// 2 1 1, add to a 1: skew 2-1 = 1; c = Min -> 100
		{name: "middle", counts: []int32{2, 1, 1}, current: 1, maxSkew: 1, allowed: true, score: 100},
		// 2 1 1, MaxSkew 2, add to the 2: skew 3-1 = 2; 100 - 50*(2-1)/2 = 75
		{name: "fullest within MaxSkew 2", counts: []int32{2, 1, 1}, current: 2, maxSkew: 2, allowed: true, score: 75},
		// 4: a single domain never skews; c = Min -> 100
		{name: "single domain", counts: []int32{4}, current: 4, maxSkew: 1, allowed: true, score: 100},
		// 10 0: skew after adding to the 0 is 10-1 = 9 > 1, but it is the
		// least loaded: c = Min -> 100
		{name: "already skewed, least loaded", counts: []int32{10, 0}, current: 0, maxSkew: 1, allowed: true, score: 100},
		// 5 0 0: skew stays 5 > 1 after adding to a 0, which is least loaded:
		// c = Min -> 100
		{name: "already skewed, tied least loaded", counts: []int32{5, 0, 0}, current: 0, maxSkew: 1, allowed: true, score: 100},
		// 5 2 0: the 2 is not least loaded and skew stays 5 > 1:
		// 9*(6-2)/6 = 6, below any allowed domain but above the 5's
		// 9*(6-5)/6 = 1, so the way back to MaxSkew is still preferred
		{name: "already skewed, not least loaded", counts: []int32{5, 2, 0}, current: 2, maxSkew: 1, allowed: false, score: 6},
		{name: "already skewed, most loaded", counts: []int32{5, 2, 0}, current: 5, maxSkew: 1, allowed: false, score: 1},
		// 1 1, a domain outside the stats holding 3, MaxSkew 10: allowed;
		// 100 - 50*(3-1)/10 = 90
		{name: "above Max", counts: []int32{1, 1}, current: 3, maxSkew: 10, allowed: true, score: 90},
		// 1 1, outside holding 3, MaxSkew 1: not allowed; 9*(2-3)/2 < 0 -> 0
		{name: "above Max clamps to 0", counts: []int32{1, 1}, current: 3, maxSkew: 1, allowed: false, score: 0},
		// 2 2, a domain outside the stats holding 0: least loaded -> 100
		{name: "below Min", counts: []int32{2, 2}, current: 0, maxSkew: 1, allowed: true, score: 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := stats(t, tc.counts...)
			if got := Allowed(s, tc.current, tc.maxSkew); got != tc.allowed {
				t.Errorf("Allowed(%+v, %d, %d) = %v, want %v", s, tc.current, tc.maxSkew, got, tc.allowed)
			}
			if got := Score(s, tc.current, tc.maxSkew); got != tc.score {
				t.Errorf("Score(%+v, %d, %d) = %d, want %d", s, tc.current, tc.maxSkew, got, tc.score)
			}
		})
	}
}

// TestScoreOrder checks the property the plugins' equivalence promises and
// their preference rest on: among allowed domains, fewer vreplicas never
// score lower, and every score is within [MinScore, MaxScore].
func TestScoreOrder(t *testing.T) {
	s := stats(t, 7, 3, 3, 0, 5)
	for maxSkew := int32(1); maxSkew <= 8; maxSkew++ {
		prev := int64(framework.MaxScore + 1)
		for c := int32(0); c <= 9; c++ {
			got := Score(s, c, maxSkew)
			if got < framework.MinScore || got > framework.MaxScore {
				t.Fatalf("Score(c=%d, MaxSkew %d) = %d, out of range", c, maxSkew, got)
			}
			if got > prev {
				t.Fatalf("Score(c=%d, MaxSkew %d) = %d, above Score(c=%d) = %d", c, maxSkew, got, c-1, prev)
			}
			prev = got
		}
	}
}

func TestValidateMaxSkew(t *testing.T) {
	v := func(n int32) *int32 { return &n }
	path := field.NewPath("Args", "MaxSkew")
	cases := []struct {
		name string
		in   *int32
		want []string
	}{
		{name: "one", in: v(1)},
		{name: "large", in: v(1000)},
		{name: "unset", in: nil, want: []string{"Args.MaxSkew: Required value: must be set (SetDefaults sets it to 1)"}},
		{name: "zero", in: v(0), want: []string{"Args.MaxSkew: Invalid value: 0: must be at least 1"}},
		{name: "negative", in: v(-2), want: []string{"Args.MaxSkew: Invalid value: -2: must be at least 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateMaxSkew(tc.in, path) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ValidateMaxSkew (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStats checks Stats against the framework's own summary of the same
// counts.
func TestStats(t *testing.T) {
	for _, counts := range [][]int32{
		nil,
		{0},
		{3},
		{2, 2},
		{1, 0, 0},
		{5, 0, 5, 2},
		{7, 3, 3, 0, 5},
		{4, 1, 4, 1, 9, 9},
	} {
		want := stats(t, counts...)
		if diff := cmp.Diff(want, Stats(counts)); diff != "" {
			t.Errorf("Stats(%v) (-framework +Stats):\n%s", counts, diff)
		}
	}
}
