package state

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// The pods that run nothing (issue 20): when each was first seen without a
// node, which are unbound past the grace, and the vreplicas they hold.
func TestUnboundAndUnavailablePods(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n0", "z"}, {"n1", "z"}}, []string{"n0", "n0", "n1", "n0"})
	s.Observe(src("a", "1", 16, p(0, 4), p(1, 4), p(2, 4), p(3, 4)), t0)
	s.UpsertPodAt(mkPod(1, ""), t0)                  // unbound since t0
	s.UpsertPodAt(mkPod(1, ""), t0.Add(time.Minute)) // still: keeps t0
	s.UpsertPodAt(mkPod(3, ""), t0.Add(time.Minute))
	s.UpsertNode(mkNode("n1", "z", tainted(TaintNodeUnreachable, corev1.TaintEffectNoExecute)), t0)

	now := t0.Add(90 * time.Second)
	if d := cmp.Diff([]int32{1}, s.UnboundPast(now, time.Minute)); d != "" {
		t.Errorf("UnboundPast (-want +got):\n%s", d)
	}
	if got := s.PodUnavailableSince(2); !got.Equal(t0) {
		t.Errorf("PodUnavailableSince(2) = %v, want the node's %v", got, t0)
	}
	if got := s.UnavailableVReplicas(); got != 12 {
		t.Errorf("UnavailableVReplicas() = %d, want 12 (pods 1 and 3 unbound, pod 2 on a lost node)", got)
	}
	s.UpsertPodAt(mkPod(1, "n0"), now) // bound at last
	if got := s.PodUnboundSince(1); !got.IsZero() {
		t.Errorf("PodUnboundSince(1) = %v once bound, want zero", got)
	}
	if d := cmp.Diff([]int32{3}, s.UnboundPast(now.Add(time.Hour), time.Minute)); d != "" {
		t.Errorf("UnboundPast once pod 1 is bound (-want +got):\n%s", d)
	}
	if n := s.BindStartingPods(now.Add(time.Hour), time.Minute); n != 0 {
		t.Errorf("BindStartingPods past the grace bound %d pods, want 0 (pod 3 waits for a node no one gives)", n)
	}
	if n := s.BindStartingPods(t0.Add(time.Minute), time.Minute); n != 1 {
		t.Errorf("BindStartingPods within the grace bound %d pods, want pod 3", n)
	}
}
