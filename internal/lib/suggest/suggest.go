// Package suggest turns an unknown name into a "did you mean" hint, so that
// configuration and scenario errors point at the likely typo.
package suggest

import (
	"strconv"
	"strings"
)

// DidYouMean returns ` (did you mean "X"?)` for the option X closest to s,
// when one is close: equal but for case (unless caseInsensitive, where that
// would already have matched), or at most two single-character edits apart.
// It returns "" when nothing is close, or when s is itself an option.
func DidYouMean(s string, options []string, caseInsensitive bool) string {
	best, bestDist := "", 3
	for _, o := range options {
		d := EditDistance(strings.ToLower(s), strings.ToLower(o))
		if d == 0 && caseInsensitive {
			continue
		}
		if d < bestDist {
			best, bestDist = o, d
		}
	}
	if best == "" || best == s {
		return ""
	}
	return " (did you mean " + strconv.Quote(best) + "?)"
}

// EditDistance is the Levenshtein distance between a and b, in runes. Long
// inputs are not compared (the distance is reported as large), which keeps
// the cost bounded for hostile input.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 30
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
