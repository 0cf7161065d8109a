package spread

import (
	"math"

	"github.com/vsched/vsched/framework"
)

// Bound is the highest count Allowed accepts over s: for maxSkew 1 or
// more, Allowed(s, c, maxSkew) is c <= Bound(s, maxSkew) (math.MaxInt64
// when s counts no domain). A summary that only decides Allowed needs no
// more than this one value, which moves less often than s's Min and Max
// together: with MaxSkew 1 it is Min.
func Bound(s framework.DomainStats, maxSkew int32) int64 {
	if s.Domains == 0 {
		return math.MaxInt64
	}
	// Above Min, one more makes the skew max(Max, c+1) - Min.
	if int64(s.Max)-int64(s.Min) > int64(maxSkew) {
		return int64(s.Min)
	}
	return int64(s.Min) + int64(maxSkew) - 1
}

// FromSummary is the DomainStats a Key written at sum[at:at+3] stands
// for, as far as Allowed and Score read it (Domains is 0 or 1).
func FromSummary(sum *framework.ScoreSummary, at int) framework.DomainStats {
	return framework.DomainStats{Domains: int(sum[at]), Min: int32(sum[at+1]), Max: int32(sum[at+2])}
}
