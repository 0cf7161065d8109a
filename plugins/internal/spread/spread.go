// Package spread holds the arithmetic shared by the plugins that spread a
// source's vreplicas evenly over failure domains (pods, nodes or zones), so
// that the filter and every priority agree on what "too uneven" means.
package spread

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
)

// DefaultMaxSkew is the MaxSkew of a spread plugin configured without one:
// domains may differ by one vreplica, the tightest spread that can always be
// reached.
const DefaultMaxSkew int32 = 1

// Allowed reports whether one more vreplica on a domain now holding current
// is acceptable: the skew over the domains summarised by s stays within
// maxSkew, or the domain is among the least loaded.
//
// The second case only matters once the skew is already above maxSkew, for
// example when a source grew while the StatefulSet had a single pod and the
// new pods now hold none of it. Adding to a least-loaded domain never widens
// the skew; refusing it too would leave no acceptable domain at all and the
// source stuck with pending vreplicas however far the StatefulSet scales.
func Allowed(s framework.DomainStats, current, maxSkew int32) bool {
	return current <= s.Min || s.SkewAfterAdd(current) <= maxSkew
}

// The scores of the spread priorities fall in two bands, so that a
// priority's preference for the domains where one more vreplica keeps the
// skew within MaxSkew outweighs the plugins of lower weight (the default
// policy's proof is in package config's doc).
const (
	// WithinFloor bounds from below the score of a domain where one more
	// vreplica is Allowed: those score in [WithinFloor, MaxScore], and
	// exactly MaxScore when MaxSkew is 1 (only a least-loaded domain is
	// allowed then).
	WithinFloor int64 = 50
	// BeyondCeiling is the highest score of a domain where it is not:
	// those score in [0, BeyondCeiling], the least loaded highest, so that
	// when every allowed domain is ruled out by some other plugin the
	// vreplica still goes to the least loaded domain left.
	BeyondCeiling int64 = 9
)

// Score ranks a domain now holding current for one more vreplica. Where it
// is Allowed:
//
//	MaxScore - (MaxScore - WithinFloor) * (current - Min) / MaxSkew
//
// (current - Min is below MaxSkew there, so a least-loaded domain scores
// MaxScore and the others more than WithinFloor). Elsewhere:
//
//	BeyondCeiling * (Max + 1 - current) / (Max + 1)
//
// at least 0 (a domain holding more than Max, outside s, scores 0).
func Score(s framework.DomainStats, current, maxSkew int32) int64 {
	if Allowed(s, current, maxSkew) {
		above := min(int64(max(current-s.Min, 0)), int64(maxSkew))
		return framework.MaxScore - (framework.MaxScore-WithinFloor)*above/int64(maxSkew)
	}
	m := int64(s.Max) + 1
	return max(framework.MinScore, BeyondCeiling*(m-int64(current))/m)
}

// Counted picks the domains a priority ranks against: every counted domain
// (all) while the least loaded domain with room for one more vreplica
// (room, a subset of all) may take it within maxSkew over all of them, and
// otherwise only the domains with room. A full domain holding the fewest
// then no longer makes every other domain look too loaded: the domains that
// can take the vreplica stay within maxSkew of each other (the gradient past
// the bound).
func Counted(all, room framework.DomainStats, maxSkew int32) framework.DomainStats {
	if room.Domains == 0 || Allowed(all, room.Min, maxSkew) {
		return all
	}
	return room
}

// ValidateMaxSkew checks a MaxSkew argument after defaulting; path is the
// field path of the MaxSkew field itself.
func ValidateMaxSkew(v *int32, path *field.Path) field.ErrorList {
	if v == nil {
		return field.ErrorList{field.Required(path, "must be set (SetDefaults sets it to 1)")}
	}
	if *v < 1 {
		return field.ErrorList{field.Invalid(path, *v, "must be at least 1")}
	}
	return nil
}

// Stats summarises counts as framework.DomainStats, for plugins that count
// over a set of domains the framework does not summarise itself. With no
// counts every field is 0.
func Stats(counts []int32) framework.DomainStats {
	if len(counts) == 0 {
		return framework.DomainStats{}
	}
	s := framework.DomainStats{Domains: len(counts), Min: counts[0], Max: counts[0]}
	for _, v := range counts[1:] {
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
	}
	s.NextMin, s.NextMax = s.Max, s.Min
	for _, v := range counts {
		switch {
		case v == s.Min:
			s.AtMin++
		case v < s.NextMin:
			s.NextMin = v
		}
		switch {
		case v == s.Max:
			s.AtMax++
		case v > s.NextMax:
			s.NextMax = v
		}
	}
	return s
}

// Key is what Allowed and Score read of s: whether it counts any domain,
// its Min and its Max (SkewAfterAdd reads AtMin and NextMin only for a
// domain holding Min, which Allowed accepts before asking). Two summaries
// with the same Key give every domain the same verdict and score, which
// the plugins' framework.ScoreSummary relies on.
func Key(s framework.DomainStats) [3]int64 {
	return [3]int64{int64(min(s.Domains, 1)), int64(s.Min), int64(s.Max)}
}

// Summary is Key as a framework.ScoreSummary, for the plugins whose kept
// scores or verdicts (framework.ScoreInputs, FilterInputs) read one
// summary and nothing else of the decision.
func Summary(s framework.DomainStats) framework.ScoreSummary {
	k := Key(s)
	return framework.ScoreSummary{k[0], k[1], k[2]}
}
