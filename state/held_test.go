package state

import (
	"testing"

	"github.com/vsched/vsched"
)

// HeldReplicas counts what HighestUsedOrdinal leaves out: placements above
// the ordinals tracked, committed or reserved; names of other StatefulSets'
// pods and empty placements count for nothing.
func TestHeldReplicas(t *testing.T) {
	tests := []struct {
		name    string
		arrange func(s *State)
		want    int32
	}{
		{"nothing placed", func(*State) {}, 0},
		{"tracked only", func(s *State) {
			s.Observe(src("a", "1", 3, p(0, 1), p(4, 2)), t0)
		}, 5},
		{"committed beyond the tracked ordinals", func(s *State) {
			s.Observe(src("a", "1", 4, p(0, 1), p(69, 2), p(100, 0)), t0)
			s.Observe(src("b", "1", 1, p(3, 1)), t0)
		}, 70},
		{"reserved beyond them", func(s *State) {
			s.Observe(src("a", "1", 3, p(0, 3)), t0)
			s.Reserve(key("a"), 3, "1", []vsched.Placement{p(0, 1), p(80, 2)}, t0)
		}, 81},
		{"another StatefulSet's pod", func(s *State) {
			s.Observe(src("a", "1", 3, p(1, 1), named("other-90", 2)), t0)
		}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t, 10) // replicas 0: 64 ordinals tracked
			tc.arrange(s)
			if got := s.HeldReplicas(); got != tc.want {
				t.Errorf("HeldReplicas() = %d, want %d (HighestUsedOrdinal %d)", got, tc.want, s.HighestUsedOrdinal())
			}
		})
	}
}
