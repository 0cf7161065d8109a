package state

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
)

func TestOrdinalOf(t *testing.T) {
	s := newState(t, 1)
	for name, want := range map[string]int32{"adapter-0": 0, "adapter-17": 17} {
		if ord, ok := s.OrdinalOf(name); ord != want || !ok {
			t.Errorf("OrdinalOf(%q) = %d, %v; want %d, true", name, ord, ok, want)
		}
	}
	// Not "<statefulset>-<ordinal>", or an ordinal beyond int32: -1, false.
	for _, name := range []string{
		"adapter", "adapter-", "adapter--1", "adapter-01", "adapter-+1", "adapter-x", "adapter-1-2",
		"adapterx-1", "web-1", "-1", "", "adapter-99999999999", "adapter-2147483648",
	} {
		if ord, ok := s.OrdinalOf(name); ord != -1 || ok {
			t.Errorf("OrdinalOf(%q) = %d, %v; want -1, false", name, ord, ok)
		}
	}
}

// Pods whose names are not "<statefulset>-<ordinal>" are other workloads'
// or garbage: ignored, never fatal.
func TestMalformedPodNamesIgnored(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0"})
	for _, name := range []string{"adapter", "adapter-", "adapter--1", "adapter-01", "adapter-x", "adapter-1-2", "adapterx-0", "web-0", "-0", "", "adapter-99999999999"} {
		pod := mkPod(0, "n0")
		pod.Name = name
		if s.UpsertPod(pod) {
			t.Errorf("UpsertPod(%q) reported new capacity", name)
		}
		s.DeletePod(name)
	}
	if s.NumPods() != 1 || !s.PodExists(0) || s.NumNodes() != 1 {
		t.Errorf("malformed names changed the state: NumPods %d, PodExists(0) %v, NumNodes %d", s.NumPods(), s.PodExists(0), s.NumNodes())
	}
	s.DeletePod("adapter-5") // well formed, never seen
	if s.NumPods() != 1 {
		t.Errorf("deleting an unknown pod grew the state to %d", s.NumPods())
	}
}

// An absurd ordinal, in a pod's name, a source's placements or a
// StatefulSet's replicas, must not make the state allocate a slot for every
// ordinal below it.
func TestHugeOrdinalsDoNotExhaustMemory(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0"})
	huge := "adapter-2147483647"
	pod := mkPod(0, "n0")
	pod.Name = huge
	s.UpsertPod(pod)
	s.Observe(src("a", "1", 3, named(huge, 2), p(0, 1)), t0)
	s.Reserve(key("b"), 3, "1", []vsched.Placement{named(huge, 3)}, t0)
	s.SetDraining(2147483647, true)
	if s.NumPods() != 1 {
		t.Fatalf("NumPods() = %d after a huge ordinal, want 1", s.NumPods())
	}
	if s.TotalUsed() != 1 {
		t.Errorf("TotalUsed() = %d, want 1 (only adapter-0 counts)", s.TotalUsed())
	}
	_, problems := s.Normalize([]vsched.Placement{named(huge, 1)})
	if len(problems) != 1 {
		t.Errorf("Normalize did not report %s: %q", huge, problems)
	}
	if ord, ok := s.OrdinalOf(vsched.PodName(sts, MaxOrdinal)); !ok || ord != MaxOrdinal {
		t.Errorf("OrdinalOf(MaxOrdinal) = %d, %v", ord, ok)
	}
	if _, ok := s.OrdinalOf(vsched.PodName(sts, MaxOrdinal+1)); ok {
		t.Error("OrdinalOf(MaxOrdinal+1) accepted")
	}
	s.SetReplicas(2147483647)
	if s.NumPods() != MaxOrdinal+1 || s.Replicas() != MaxOrdinal+1 {
		t.Fatalf("SetReplicas(MaxInt32): NumPods %d, Replicas %d; want both %d", s.NumPods(), s.Replicas(), MaxOrdinal+1)
	}
}

func TestNodeAvailability(t *testing.T) {
	type result struct {
		Schedulable, Unavailable bool
		Reason                   string
	}
	tests := []struct {
		name string
		node *corev1.Node
		want result
	}{
		{"ready", mkNode("n", "z"), result{true, false, ""}},
		{"cordoned", mkNode("n", "z", cordoned), result{false, false, "node is cordoned"}},
		{"NotReady", mkNode("n", "z", readyStatus(corev1.ConditionFalse)), result{false, true, "node is not Ready"}},
		{"Ready unknown", mkNode("n", "z", readyStatus(corev1.ConditionUnknown)), result{false, true, "node is not Ready"}},
		{"no Ready condition", mkNode("n", "z", noReadyCondition), result{false, true, "node is not Ready"}},
		{"cordoned and NotReady", mkNode("n", "z", cordoned, readyStatus(corev1.ConditionFalse)), result{false, true, "node is not Ready"}},
		{"unreachable NoSchedule", mkNode("n", "z", tainted(TaintNodeUnreachable, corev1.TaintEffectNoSchedule)), result{false, true, "tainted node.kubernetes.io/unreachable"}},
		{"unreachable NoExecute", mkNode("n", "z", tainted(TaintNodeUnreachable, corev1.TaintEffectNoExecute)), result{false, true, "tainted node.kubernetes.io/unreachable"}},
		{"not-ready taint", mkNode("n", "z", tainted(TaintNodeNotReady, corev1.TaintEffectNoExecute)), result{false, true, "tainted node.kubernetes.io/not-ready"}},
		{"tainted and cordoned", mkNode("n", "z", cordoned, tainted(TaintNodeUnreachable, corev1.TaintEffectNoSchedule)), result{false, true, "tainted node.kubernetes.io/unreachable"}},
		{"other taints", mkNode("n", "z", tainted("node.kubernetes.io/unschedulable", corev1.TaintEffectNoSchedule), tainted("gpu", corev1.TaintEffectNoExecute)), result{true, false, ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got result
			got.Schedulable, got.Unavailable, got.Reason = NodeAvailability(tc.node)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestUnavailableSince follows one node through failures: the time is set
// when it first becomes unavailable, kept while it stays so (whatever the
// reason), cleared on recovery, and never set for a cordon.
func TestUnavailableSince(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0"})
	s.UpsertPod(mkPod(1, ""))
	s.SetReplicas(2)
	steps := []struct {
		name string
		node *corev1.Node
		want time.Time
	}{
		{"ready", mkNode("n0", "z"), time.Time{}},
		{"NotReady", mkNode("n0", "z", readyStatus(corev1.ConditionFalse)), t0.Add(1 * time.Minute)},
		{"still NotReady", mkNode("n0", "z", readyStatus(corev1.ConditionFalse)), t0.Add(1 * time.Minute)},
		{"tainted unreachable", mkNode("n0", "z", readyStatus(corev1.ConditionUnknown), tainted(TaintNodeUnreachable, corev1.TaintEffectNoExecute)), t0.Add(1 * time.Minute)},
		{"recovered", mkNode("n0", "z"), time.Time{}},
		{"cordoned", mkNode("n0", "z", cordoned), time.Time{}},
		{"cordoned and tainted", mkNode("n0", "z", cordoned, tainted(TaintNodeNotReady, corev1.TaintEffectNoSchedule)), t0.Add(6 * time.Minute)},
	}
	for i, st := range steps {
		s.UpsertNode(st.node, t0.Add(time.Duration(i)*time.Minute))
		if got := s.NodeUnavailableSince(0); !got.Equal(st.want) {
			t.Errorf("%s: NodeUnavailableSince(0) = %v, want %v", st.name, got, st.want)
		}
		// An unbound pod has no node to be unavailable.
		if got := s.NodeUnavailableSince(1); !got.IsZero() {
			t.Errorf("%s: NodeUnavailableSince(unbound) = %v", st.name, got)
		}
	}
}

// TestUpsertReportsNewCapacity checks the hint the scheduler uses to requeue
// pending sources.
func TestUpsertReportsNewCapacity(t *testing.T) {
	s := newState(t, 2)
	s.SetReplicas(3)
	s.UpsertNode(mkNode("n0", "z"), t0)
	steps := []struct {
		name string
		do   func() bool
		want bool
	}{
		{"first pod", func() bool { return s.UpsertPod(mkPod(0, "n0")) }, true},
		{"same pod again", func() bool { return s.UpsertPod(mkPod(0, "n0")) }, false},
		{"unbound pod", func() bool { return s.UpsertPod(mkPod(1, "")) }, false},
		{"bound", func() bool { return s.UpsertPod(mkPod(1, "n0")) }, true},
		{"draining", func() bool { return s.UpsertPod(mkPod(1, "n0", annotated(evictor.DefaultAnnotation, "true"))) }, false},
		{"cordon", func() bool { return s.UpsertNode(mkNode("n0", "z", cordoned), t0) }, false},
		{"uncordon", func() bool { return s.UpsertNode(mkNode("n0", "z"), t0) }, true},
		// Conservative: any node turning schedulable may bring pods.
		{"another node", func() bool { return s.UpsertNode(mkNode("n1", "z"), t0) }, true},
		{"same node again", func() bool { return s.UpsertNode(mkNode("n1", "z"), t0) }, false},
		{"full pod frees up", func() bool {
			s.Observe(src("a", "1", 2, p(0, 2)), t0)
			s.UpsertPod(mkPod(2, "n1"))
			return s.UpsertPod(mkPod(0, "n0", terminating))
		}, false},
	}
	for _, st := range steps {
		if got := st.do(); got != st.want {
			t.Errorf("%s: reported %v, want %v", st.name, got, st.want)
		}
	}
}

func TestDeleteNode(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "a"}, {"n1", "b"}}, []string{"n0", "n1"})
	s.DeleteNode("unknown")
	s.DeleteNode("n1")
	if d := cmp.Diff([]int32{0}, s.Candidates()); d != "" {
		t.Errorf("Candidates() (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int32{0}, s.SchedulableZones()); d != "" {
		t.Errorf("SchedulableZones() (-want +got):\n%s", d)
	}
	// The node comes back under its old index.
	if !s.UpsertNode(mkNode("n1", "b"), t0) {
		t.Error("node returning did not report new capacity")
	}
	if s.NumNodes() != 2 || s.NodeName(1) != "n1" {
		t.Errorf("NumNodes %d, NodeName(1) %q", s.NumNodes(), s.NodeName(1))
	}
	if d := cmp.Diff([]int32{0, 1}, s.Candidates()); d != "" {
		t.Errorf("Candidates() after return (-want +got):\n%s", d)
	}
}

// A pod moving between nodes (recreated elsewhere) and to and from no node.
func TestPodMovesNodes(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "a"}, {"n1", "b"}}, []string{"n0"})
	s.Observe(src("a", "1", 1, p(0, 1)), t0)
	s.DeletePod("adapter-0")
	if s.PodExists(0) || s.Used(0) != 1 || s.Free(0) != 0 {
		t.Errorf("deleted pod: exists %v, Used %d (vreplicas stay on the ordinal), Free %d", s.PodExists(0), s.Used(0), s.Free(0))
	}
	s.UpsertPod(mkPod(0, ""))
	s.UpsertPod(mkPod(0, "n1"))
	info, _ := s.Pod(0)
	if info.Node != "n1" || info.Zone != "b" || !info.Candidate || s.Free(0) != 1 {
		t.Errorf("Pod(0) = %+v, Free %d", info, s.Free(0))
	}
	if d := cmp.Diff([]int32{1}, s.SchedulableNodes()); d != "" {
		t.Errorf("SchedulableNodes() (-want +got):\n%s", d)
	}
	p := mkPod(0, "n1")
	p.DeletionTimestamp = &metav1.Time{Time: t0}
	s.UpsertPod(p)
	if len(s.SchedulableNodes()) != 0 {
		t.Errorf("terminating pod's node still schedulable")
	}
}

// GrowthZones: zones with a schedulable node but no candidate pod count
// only while some ordinal below replicas has no bound, live pod.
func TestGrowthZones(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"na", "a"}, {"nb", "b"}, {"nc", "c"}}, []string{"na"})
	zones := func() []string {
		var out []string
		for _, z := range s.GrowthZones() {
			out = append(out, s.ZoneName(z))
		}
		return out
	}
	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"every pod bound", func() {}, nil},
		{"scale-up to 3, no pod created yet", func() { s.SetReplicas(3) }, []string{"b", "c"}},
		{"pod 1 created, not bound", func() { s.UpsertPod(mkPod(1, "")) }, []string{"b", "c"}},
		{"pod 1 bound in b", func() { s.UpsertPod(mkPod(1, "nb")) }, []string{"c"}},
		{"zone c's node cordoned", func() { s.UpsertNode(mkNode("nc", "c", cordoned), t0) }, nil},
		{"zone c's node back", func() { s.UpsertNode(mkNode("nc", "c"), t0) }, []string{"c"}},
		{"pod 2 bound in c", func() { s.UpsertPod(mkPod(2, "nc")) }, nil},
		{"pod 2 terminating, to be recreated", func() { s.UpsertPod(mkPod(2, "nc", terminating)) }, []string{"c"}},
		{"pod 2 recreated in a", func() { s.UpsertPod(mkPod(2, "na")) }, nil},
		{"scale-down leaves no gap", func() { s.SetReplicas(2) }, nil},
	}
	for _, st := range steps {
		st.do()
		if d := cmp.Diff(st.want, zones()); d != "" {
			t.Errorf("%s: GrowthZones() (-want +got):\n%s", st.name, d)
		}
	}
}
