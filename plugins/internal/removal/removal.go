// Package removal holds the arithmetic shared by the descheduler's spread
// score plugins (RemoveWithEvenPodSpreadPriority,
// RemoveWithAvailabilityZonePriority, RemoveWithAvailabilityNodePriority), so
// that they agree on what "remove from here first" means over pods, nodes and
// zones. The node and zone plugins differ only in their Domain.
//
// A removal score is higher where removing one vreplica is better. Every
// function here returns a score in [framework.MinScore, framework.MaxScore]
// computed in int64 from int32 counts: MaxScore*count is at most 100*(2^31-1),
// far from overflowing.
package removal

import (
	"github.com/vsched/vsched/framework"
)

// Proportional is the share of the fullest domain that a domain holding count
// vreplicas holds, on the score scale and rounded up:
//
//	ceil(MaxScore * count / max) = (MaxScore*count + max - 1) / max
//
// for 0 < count <= max. Rounding up keeps every domain that holds anything at
// 1 or more, so it stays above a removal that Score forbids (0) however large
// max grows. count <= 0 gives MinScore, count >= max gives MaxScore, and so
// does max <= 0 (no domain holds anything: nothing to prefer).
func Proportional(count, max int32) int64 {
	switch {
	case max <= 0:
		return framework.MaxScore
	case count <= 0:
		return framework.MinScore
	case count >= max:
		return framework.MaxScore
	}
	m := int64(max)
	return (framework.MaxScore*int64(count) + m - 1) / m
}

// Forbidden reports whether removing one vreplica from a domain now holding
// count breaks maxSkew while another removal would not: the skew over the
// domains summarised by s would exceed maxSkew afterwards, yet removing from a
// fullest domain would keep it within maxSkew.
//
// Removing from a fullest domain always leaves the smallest skew there is (it
// is the only removal that can lower the maximum, and it lowers the minimum
// only when every domain is equally full, in which case every removal does),
// so comparing with s.SkewAfterRemove(s.Max) answers "would another removal
// not?" without looking at every domain.
//
// When even the best removal leaves the skew above maxSkew (the source is
// already more uneven than allowed, for example after a zone came back
// empty), nothing is forbidden: Proportional alone then steers removals to
// the fullest domains, which is the way back towards maxSkew.
func Forbidden(s framework.DomainStats, count, maxSkew int32) bool {
	if s.Domains == 0 || count <= 0 {
		return false
	}
	return s.SkewAfterRemove(count) > maxSkew && s.SkewAfterRemove(s.Max) <= maxSkew
}

// Bands of the removal scores, as for the spread priorities (package
// spread): a removal that is not Forbidden and leaves the skew within
// maxSkew, or comes from a fullest domain, scores in [WithinFloor,
// MaxScore] (exactly MaxScore with maxSkew 1); any other in [0,
// BeyondCeiling].
const (
	WithinFloor   int64 = 50
	BeyondCeiling int64 = 9
)

// Score ranks removing one vreplica from a domain now holding count, among
// the domains summarised by s:
//
//	MinScore                                             if Forbidden
//	MaxScore - (MaxScore-WithinFloor)*(Max-count)/maxSkew  from a fullest domain, or
//	                                                     leaving the skew within maxSkew
//	max(1, BeyondCeiling*Proportional(count, Max)/MaxScore) otherwise
//
// (Max - count is below maxSkew in the second case). The last case is a
// source already more uneven than maxSkew, where no removal can bring it
// back and the fuller domains still go first. A domain holding nothing
// scores MinScore (there is nothing to remove) and, when s counts no domain
// at all, every domain scores MaxScore: there is no spread to keep, and a
// constant leaves the other plugins to decide.
func Score(s framework.DomainStats, count, maxSkew int32) int64 {
	if s.Domains == 0 {
		return framework.MaxScore
	}
	if count <= 0 || Forbidden(s, count, maxSkew) {
		return framework.MinScore
	}
	if count >= s.Max || s.SkewAfterRemove(count) <= maxSkew {
		below := min(int64(max(s.Max-count, 0)), int64(maxSkew))
		return framework.MaxScore - (framework.MaxScore-WithinFloor)*below/int64(maxSkew)
	}
	return max(1, BeyondCeiling*Proportional(count, s.Max)/framework.MaxScore)
}

// Stats accumulates counts into a framework.DomainStats, with the meaning
// that type documents (NextMin is Max and NextMax is Min when no other value
// exists). The zero value is ready to use.
type Stats struct {
	s                  framework.DomainStats
	hasNext, hasBefore bool // a count above Min / below Max has been seen
}

// Add counts one domain holding v.
func (a *Stats) Add(v int32) {
	s := &a.s
	if s.Domains == 0 {
		*s = framework.DomainStats{Domains: 1, Min: v, Max: v, AtMin: 1, AtMax: 1}
		return
	}
	s.Domains++
	switch {
	case v < s.Min:
		s.NextMin, a.hasNext = s.Min, true
		s.Min, s.AtMin = v, 1
	case v == s.Min:
		s.AtMin++
	case !a.hasNext || v < s.NextMin:
		s.NextMin, a.hasNext = v, true
	}
	switch {
	case v > s.Max:
		s.NextMax, a.hasBefore = s.Max, true
		s.Max, s.AtMax = v, 1
	case v == s.Max:
		s.AtMax++
	case !a.hasBefore || v > s.NextMax:
		s.NextMax, a.hasBefore = v, true
	}
}

// Result returns the summary of every count added so far; with none, every
// field is 0.
func (a *Stats) Result() framework.DomainStats {
	s := a.s
	if !a.hasNext {
		s.NextMin = s.Max
	}
	if !a.hasBefore {
		s.NextMax = s.Min
	}
	return s
}

// Key is what Forbidden and Score read of s: whether it counts no domain,
// one or more; Min and Max; and, when one domain alone holds Max, the
// highest count below it (SkewAfterRemove reads AtMax and NextMax only
// then). Two summaries with the same Key give every domain the same
// score, which the plugins' framework.ScoreSummary relies on.
func Key(s framework.DomainStats) [4]int64 {
	next := int64(-1)
	if s.AtMax == 1 {
		next = int64(s.NextMax)
	}
	return [4]int64{int64(min(s.Domains, 2)), int64(s.Min), int64(s.Max), next}
}
