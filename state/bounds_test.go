package state

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
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
			checkProblems(t, problems, tc.wantProblems)
		})
	}
}

// One stray pod (or placement) with a huge ordinal must not grow the pod
// slice every call walks, nor enter the drain set; what a source counts
// stays consistent, so forgetting it frees exactly what it took.
func TestStrayOrdinalsDoNotGrowTheState(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0"})
	s.UpsertPod(mkPod(65535, "n0", annotated(evictor.DefaultAnnotation, "compaction")))
	s.UpsertPod(mkPod(40000, "n0"))
	s.DeletePod(vsched.PodName(sts, 50000))
	s.Observe(src("a", "1", 3, p(65535, 2), p(0, 1)), t0)
	s.Reserve(key("b"), 1, "1", []vsched.Placement{p(65534, 1)}, t0)
	s.SetDraining(65533, true)
	if n := s.NumPods(); n != 3 {
		t.Errorf("NumPods() = %d after stray ordinals, want 3", n)
	}
	if d := s.DrainingOrdinals(); len(d) != 0 {
		t.Errorf("DrainingOrdinals() = %v, want none", d)
	}
	if u, h := s.TotalUsed(), s.HighestUsedOrdinal(); u != 1 || h != 0 {
		t.Errorf("TotalUsed() = %d, HighestUsedOrdinal() = %d; want 1 and 0", u, h)
	}
	s.Forget(key("a"), t0)
	s.Forget(key("b"), t0)
	if u := s.TotalUsed(); u != 0 {
		t.Errorf("TotalUsed() = %d after forgetting every source, want 0", u)
	}
}

// A pod or placement far above the replicas the state has seen is kept
// aside, and counts once the StatefulSet grows near it (the pod informer
// may run ahead of the StatefulSet's).
func TestStrayOrdinalsCountOnceReached(t *testing.T) {
	const far = 200
	s := newState(t, 5)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0"})
	s.UpsertPod(mkPod(far, "n0"))
	s.UpsertPod(mkPod(far-1, "n0"))
	s.DeletePod(vsched.PodName(sts, far-1))
	s.Observe(src("a", "1", 3, p(far, 2), p(0, 1)), t0)
	if u, tracks := s.TotalUsed(), s.Tracks(far); u != 1 || tracks {
		t.Errorf("before the StatefulSet grows near adapter-%d: TotalUsed() = %d, Tracks = %v; want 1, false", far, u, tracks)
	}
	s.SetReplicas(far + 1)
	if c := s.Candidates(); len(c) != 4 || c[3] != far {
		t.Errorf("Candidates() = %v, want 0, 1, 2 and %d", c, far)
	}
	if u, used := s.TotalUsed(), s.Used(far); u != 3 || used != 2 {
		t.Errorf("TotalUsed() = %d, Used(%d) = %d; want 3 and 2", u, far, used)
	}
	s.Forget(key("a"), t0)
	if u := s.TotalUsed(); u != 0 || s.Used(far) != 0 {
		t.Errorf("TotalUsed() = %d, Used(%d) = %d after Forget; want 0", u, far, s.Used(far))
	}
}

// A status with many bad entries, or long pod names, gives a bounded list of
// short problems: Schedule logs them on every call.
func TestNormalizeProblemsAreBounded(t *testing.T) {
	s := newState(t, 5)
	var ps []vsched.Placement
	for range 1000 {
		ps = append(ps, named(strings.Repeat("x", 10000), 1))
	}
	_, problems := s.Normalize(ps)
	size := 0
	for _, p := range problems {
		size += len(p)
	}
	if len(problems) > 21 || size > 16<<10 || !strings.HasSuffix(problems[len(problems)-1], "more") {
		t.Errorf("%d problems of %d bytes in all, want at most 21 (the last counting the rest) and 16 KiB", len(problems), size)
	}
}
