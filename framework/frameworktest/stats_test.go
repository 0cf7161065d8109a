package frameworktest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

func TestStatsOf(t *testing.T) {
	tests := []struct {
		name   string
		counts []int32
		want   framework.DomainStats
	}{
		{"none", nil, framework.DomainStats{}},
		{"one", []int32{4}, framework.DomainStats{Domains: 1, Min: 4, Max: 4, AtMin: 1, AtMax: 1, NextMin: 4, NextMax: 4}},
		{"all equal", []int32{2, 2, 2}, framework.DomainStats{Domains: 3, Min: 2, Max: 2, AtMin: 3, AtMax: 3, NextMin: 2, NextMax: 2}},
		{"spread", []int32{3, 0, 5, 0, 5, 1}, framework.DomainStats{Domains: 6, Min: 0, Max: 5, AtMin: 2, AtMax: 2, NextMin: 1, NextMax: 3}},
	}
	for _, tc := range tests {
		if d := cmp.Diff(tc.want, ft.StatsOf(tc.counts)); d != "" {
			t.Errorf("%s: StatsOf(%v) (-want +got):\n%s", tc.name, tc.counts, d)
		}
	}
}
