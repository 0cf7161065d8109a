package frameworktest

import (
	"slices"

	"github.com/vsched/vsched/framework"
)

// StatsOf is framework.DomainStats computed straight from its definition
// over every domain's count: the slow reference a test compares the
// framework's incremental statistics (and a plugin's use of them) against.
func StatsOf(counts []int32) framework.DomainStats {
	if len(counts) == 0 {
		return framework.DomainStats{}
	}
	s := framework.DomainStats{Domains: len(counts), Min: slices.Min(counts), Max: slices.Max(counts)}
	s.NextMin, s.NextMax = s.Max, s.Min
	for _, c := range counts {
		if c == s.Min {
			s.AtMin++
		} else if c < s.NextMin {
			s.NextMin = c
		}
		if c == s.Max {
			s.AtMax++
		} else if c > s.NextMax {
			s.NextMax = c
		}
	}
	return s
}
