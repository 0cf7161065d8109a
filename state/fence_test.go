package state

import (
	"fmt"
	"testing"
)

func candidatesOf(s *State) string { return fmt.Sprint(s.Candidates()) }

func TestFenceKeepsShrunkOrdinalsOutUntilConfirmed(t *testing.T) {
	for _, tc := range []struct {
		name       string
		replicas   int32
		rv         string
		candidates string
	}{
		{"older event, old size", 4, "7", "[0 1]"},
		{"the written version, old size (a fake that does not bump it)", 4, "9", "[0 1]"},
		{"newer event, grown again", 4, "10", "[0 1 2 3]"},
		{"older event at the size", 2, "8", "[0 1]"},
		{"older event, smaller", 1, "8", "[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t, 10)
			cluster(s, [][2]string{{"n0", "a"}}, []string{"n0", "n0", "n0", "n0"})
			s.ObserveReplicas(4, "8")
			s.Fence(2)
			if got := candidatesOf(s); got != "[0 1]" || s.Replicas() != 2 {
				t.Fatalf("fenced: candidates %s, replicas %d", got, s.Replicas())
			}
			s.FenceWritten(2, "9")
			s.ObserveReplicas(tc.replicas, tc.rv)
			if got := candidatesOf(s); got != tc.candidates {
				t.Fatalf("candidates %s, want %s", got, tc.candidates)
			}
		})
	}
}

func TestRestoreFenceAfterAFailedWrite(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n0", "a"}}, []string{"n0", "n0", "n0", "n0"})
	prev := s.Fence(2)
	// An event arriving meanwhile is recorded, not applied past the fence.
	s.ObserveReplicas(5, "3")
	if s.Replicas() != 2 || s.ObservedReplicas() != 5 {
		t.Fatalf("replicas %d observed %d", s.Replicas(), s.ObservedReplicas())
	}
	s.RestoreFence(prev)
	if _, fenced := s.Fenced(); fenced || s.Replicas() != 5 {
		t.Fatalf("after the failed write: fenced %v, replicas %d, want 5", fenced, s.Replicas())
	}
}

func TestNonNumericVersionsEndTheFenceOnAnotherVersion(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n0", "a"}}, []string{"n0", "n0", "n0", "n0"})
	s.ObserveReplicas(4, "abc")
	s.Fence(2)
	s.FenceWritten(2, "abd")
	for _, rv := range []string{"abc", "abd"} {
		if s.ObserveReplicas(4, rv); s.Replicas() != 2 {
			t.Fatalf("event at %s lifted the fence", rv)
		}
	}
	if s.ObserveReplicas(4, "xyz"); s.Replicas() != 4 {
		t.Fatalf("a newer event kept the fence: replicas %d", s.Replicas())
	}
}

func TestUnfenceAfterALargerWrite(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n0", "a"}}, []string{"n0", "n0", "n0", "n0"})
	s.Fence(2)
	s.FenceWritten(2, "9")
	s.Unfence()
	if _, fenced := s.Fenced(); fenced || s.Replicas() != 2 {
		t.Fatalf("fenced %v, replicas %d: want the written size kept until the informer shows more", fenced, s.Replicas())
	}
	if s.ObserveReplicas(4, "9"); s.Replicas() != 4 {
		t.Fatalf("replicas %d after the informer showed 4", s.Replicas())
	}
}
