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

// Score ranks a domain now holding current for one more vreplica:
//
//	MaxScore * (Max + 1 - current) / (Max + 1)
//
// so the emptiest domain scores MaxScore and the fullest MaxScore/(Max+1),
// and 0 when the vreplica is not Allowed there. The +1 keeps the fullest
// domain above 0 so that it still beats a domain that is not allowed. A
// domain outside s (current above s.Max) scores 0.
func Score(s framework.DomainStats, current, maxSkew int32) int64 {
	if !Allowed(s, current, maxSkew) {
		return framework.MinScore
	}
	m := int64(s.Max) + 1
	sc := framework.MaxScore * (m - int64(current)) / m
	return max(framework.MinScore, min(framework.MaxScore, sc))
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
