package state

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
)

// Two statuses whose counts on one pod sum past MaxInt32 must not wrap the
// pod's used count: a wrapped count makes a full pod look free.
func TestAbsurdStatusesDoNotWrapUsed(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0"})
	s.Observe(src("a", "1", 1, p(0, math.MaxInt32)), t0)
	s.Observe(src("b", "1", 2, p(0, 2)), t0)
	if free := s.Free(0); free > 0 {
		t.Errorf("Free(0) = %d after statuses of MaxInt32 and 2 on a pod of 10; want <= 0", free)
	}
	if n := s.FreeCandidates(); n != 0 {
		t.Errorf("FreeCandidates() = %d, want 0", n)
	}
	if u := s.Used(0); u < 10 {
		t.Errorf("Used(0) = %d, want at least the capacity", u)
	}
}

// A status listing one pod twice with MaxInt32 must be repaired to counts
// within vsched.MaxVReplicas, never summed to a negative.
func TestNormalizeBoundsCounts(t *testing.T) {
	tests := []struct {
		name         string
		in           []vsched.Placement
		want         []vsched.Placement
		wantProblems []string
	}{
		{
			name:         "duplicates summing past MaxInt32",
			in:           []vsched.Placement{p(0, math.MaxInt32), p(0, math.MaxInt32)},
			want:         []vsched.Placement{p(0, vsched.MaxVReplicas)},
			wantProblems: []string{"listed twice", "more than the most a source may hold"},
		},
		{
			name:         "one absurd count",
			in:           []vsched.Placement{p(1, math.MaxInt32), p(0, 3)},
			want:         []vsched.Placement{p(0, 3), p(1, vsched.MaxVReplicas-3)},
			wantProblems: []string{"more than the most a source may hold"},
		},
		{
			name:         "the total past the bound",
			in:           []vsched.Placement{p(2, 5), p(0, vsched.MaxVReplicas), p(1, 1)},
			want:         []vsched.Placement{p(0, vsched.MaxVReplicas)},
			wantProblems: []string{"more than the most a source may hold"},
		},
		{
			name: "exactly the bound",
			in:   []vsched.Placement{p(0, vsched.MaxVReplicas-1), p(1, 1)},
			want: []vsched.Placement{p(0, vsched.MaxVReplicas-1), p(1, 1)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t, 5)
			got, problems := s.Normalize(tc.in)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Normalize() (-want +got):\n%s", d)
			}
			if len(problems) != len(tc.wantProblems) {
				t.Fatalf("problems = %q, want %d matching %q", problems, len(tc.wantProblems), tc.wantProblems)
			}
			for i, w := range tc.wantProblems {
				if !strings.Contains(problems[i], w) {
					t.Errorf("problems[%d] = %q, want it to contain %q", i, problems[i], w)
				}
			}
		})
	}
}
