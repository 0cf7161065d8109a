package state

import (
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
)

// view is what a caller can observe of a state, for comparing clones.
type view struct {
	Replicas, NumPods int32
	Pods              []framework.PodInfo
	Free              []int32
	Candidates        []int32
	FreeCands         int
	Nodes, Zones      []int32
	Draining          []int32
	Placements        map[types.NamespacedName][]vsched.Placement
	Pending           map[types.NamespacedName]int32
	TotalUsed         int64
}

func viewOf(s *State) view {
	v := view{
		Replicas: s.Replicas(), NumPods: s.NumPods(),
		Candidates: append([]int32(nil), s.Candidates()...), FreeCands: s.FreeCandidates(),
		Nodes: append([]int32(nil), s.SchedulableNodes()...), Zones: append([]int32(nil), s.SchedulableZones()...),
		Draining: s.DrainingOrdinals(), Placements: map[types.NamespacedName][]vsched.Placement{}, TotalUsed: s.TotalUsed(),
	}
	for ord := range s.NumPods() {
		info, _ := s.Pod(ord)
		v.Pods = append(v.Pods, info)
		v.Free = append(v.Free, s.Free(ord))
	}
	for _, k := range s.Sources() {
		v.Placements[k], _ = s.Placements(k)
	}
	v.Pending, _ = s.Pending()
	return v
}

func TestCloneIsIndependent(t *testing.T) {
	s := newState(t, 4)
	cluster(s, [][2]string{{"n0", "a"}, {"n1", "b"}}, []string{"n0", "n1", "n0"})
	s.Observe(src("a", "1", 3, p(0, 2), p(1, 1)), t0)
	s.Reserve(key("b"), 2, "", []vsched.Placement{p(2, 2)}, t0)
	s.SetPending(key("b"), 1)
	s.SetDraining(1, true)
	_ = s.Candidates() // derived indexes built: the clone must not share them
	orig := viewOf(s)

	c := s.Clone()
	if d := cmp.Diff(orig, viewOf(c)); d != "" {
		t.Fatalf("clone differs from the original (-orig +clone):\n%s", d)
	}
	// Change the clone every way a simulation might.
	c.Reserve(key("a"), 4, "1", []vsched.Placement{p(0, 4)}, t0)
	c.Observe(src("c", "1", 1, p(2, 1)), t0)
	c.Forget(key("b"), t0)
	c.SetPending(key("a"), 9)
	c.UpsertPod(mkPod(0, "n1"))
	c.UpsertNode(mkNode("n0", "a", cordoned), t0)
	c.SetDraining(1, false)
	c.SetDraining(2, true)
	c.AddVirtualPods(2)
	if err := c.SetCapacity(1); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(orig, viewOf(s)); d != "" {
		t.Errorf("changing the clone changed the original (-before +after):\n%s", d)
	}
	// And the other way round.
	cloned := viewOf(c)
	s.Reserve(key("a"), 1, "1", []vsched.Placement{p(1, 1)}, t0)
	s.UpsertNode(mkNode("n1", "b", cordoned), t0)
	s.DeletePod("adapter-2")
	if d := cmp.Diff(cloned, viewOf(c)); d != "" {
		t.Errorf("changing the original changed the clone (-before +after):\n%s", d)
	}
}

func TestCloneOfEmptyState(t *testing.T) {
	c := newState(t, 1).Clone()
	c.UpsertNode(mkNode("n0", "a"), t0)
	c.UpsertPod(mkPod(0, "n0"))
	c.SetReplicas(1)
	c.SetDraining(3, true)
	if d := cmp.Diff([]int32{0}, c.Candidates()); d != "" {
		t.Errorf("Candidates() (-want +got):\n%s", d)
	}
}

func TestAddVirtualPods(t *testing.T) {
	virtual := func(zone string) string { return VirtualNodePrefix + zone }
	type pod struct {
		Node, Zone string
		Candidate  bool
	}
	tests := []struct {
		name  string
		setup func(*State)
		n     int32
		want  []pod // every pod, by ordinal, after the call
	}{
		{
			// Zone a hosts 2 candidates, b 1, c none (its only pod is
			// draining, but its node takes pods): new pods go to c,
			// then b (tie with c: first seen), then c.
			name: "least loaded zone first",
			setup: func(s *State) {
				cluster(s, [][2]string{{"a0", "a"}, {"b0", "b"}, {"c0", "c"}}, []string{"a0", "a0", "b0", "c0"})
				s.SetDraining(3, true)
			},
			n: 3,
			want: []pod{
				{"a0", "a", true}, {"a0", "a", true}, {"b0", "b", true}, {"c0", "c", false},
				{virtual("c"), "c", true}, {virtual("b"), "b", true}, {virtual("c"), "c", true},
			},
		},
		{
			name: "a pod left over from a scale-down keeps its node and counts",
			setup: func(s *State) {
				cluster(s, [][2]string{{"a0", "a"}, {"b0", "b"}}, []string{"a0", "b0"})
				s.UpsertPod(mkPod(2, "b0"))
			},
			n:    2,
			want: []pod{{"a0", "a", true}, {"b0", "b", true}, {"b0", "b", true}, {virtual("a"), "a", true}},
		},
		{
			name: "left-over pods that cannot stay are replaced",
			setup: func(s *State) {
				cluster(s, [][2]string{{"a0", "a"}, {"b0", "b"}}, []string{"a0", "b0"})
				s.UpsertPod(mkPod(2, "b0", terminating))
				s.UpsertPod(mkPod(3, "a0", annotated(evictor.DefaultAnnotation, "true")))
				s.UpsertPod(mkPod(4, ""))
				s.SetDraining(5, true)
			},
			n: 4,
			want: []pod{
				{"a0", "a", true}, {"b0", "b", true},
				{virtual("a"), "a", true}, {virtual("b"), "b", true}, {virtual("a"), "a", true}, {virtual("b"), "b", true},
			},
		},
		{
			name: "a zone whose nodes take no pods gets none",
			setup: func(s *State) {
				cluster(s, [][2]string{{"a0", "a"}, {"b0", "b"}}, []string{"a0", "b0"})
				s.UpsertNode(mkNode("b0", "b", cordoned), t0)
			},
			n:    2,
			want: []pod{{"a0", "a", true}, {"b0", "b", false}, {virtual("a"), "a", true}, {virtual("a"), "a", true}},
		},
		{
			name: "no schedulable zone: a virtual node without one",
			setup: func(s *State) {
				cluster(s, [][2]string{{"a0", "a"}, {"x", ""}}, []string{"a0", "x"})
				s.UpsertNode(mkNode("a0", "a", cordoned), t0)
			},
			n:    2,
			want: []pod{{"a0", "a", false}, {"x", "", true}, {virtual(""), "", true}, {virtual(""), "", true}},
		},
		{
			name:  "nothing to add",
			setup: func(s *State) { cluster(s, [][2]string{{"a0", "a"}}, []string{"a0"}) },
			n:     0,
			want:  []pod{{"a0", "a", true}},
		},
		{
			name:  "negative",
			setup: func(s *State) { cluster(s, [][2]string{{"a0", "a"}}, []string{"a0"}) },
			n:     -1,
			want:  []pod{{"a0", "a", true}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t, 2)
			tc.setup(s)
			before := s.Replicas()
			s.AddVirtualPods(tc.n)
			if want := before + max(tc.n, 0); s.Replicas() != want {
				t.Errorf("Replicas() = %d, want %d", s.Replicas(), want)
			}
			var got []pod
			for ord := range s.Replicas() {
				info, ok := s.Pod(ord)
				if !ok {
					t.Fatalf("pod %d does not exist", ord)
				}
				got = append(got, pod{info.Node, info.Zone, info.Candidate})
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("pods (-want +got):\n%s", d)
			}
		})
	}
}

// A huge n must neither wrap around nor run past the pods the state keeps.
func TestAddVirtualPodsIsBounded(t *testing.T) {
	for _, n := range []int32{MaxOrdinal, MaxOrdinal + 5, 1<<31 - 1} {
		s := newState(t, 2)
		cluster(s, [][2]string{{"a0", "a"}}, []string{"a0", "a0"})
		s.AddVirtualPods(n)
		if s.Replicas() != MaxOrdinal+1 || s.NumPods() != MaxOrdinal+1 || len(s.Candidates()) != MaxOrdinal+1 {
			t.Errorf("AddVirtualPods(%d): Replicas %d, NumPods %d, %d candidates; want %d each", n, s.Replicas(), s.NumPods(), len(s.Candidates()), MaxOrdinal+1)
		}
	}
}

func TestSchedulableNodeZones(t *testing.T) {
	s := newState(t, 2)
	// Zone a: a schedulable node and no pod; b: only a cordoned node;
	// c: a deleted node; d: a NotReady node; e: a pod on a node not seen
	// yet; plus a node with no zone.
	cluster(s, [][2]string{{"a0", "a"}, {"b0", "b"}, {"c0", "c"}, {"x", ""}}, nil)
	s.UpsertNode(mkNode("b0", "b", cordoned), t0)
	s.DeleteNode("c0")
	s.UpsertNode(mkNode("d0", "d", readyStatus(corev1.ConditionFalse)), t0)
	s.UpsertPod(mkPod(0, "e0"))
	if d := cmp.Diff([]int32{0}, s.SchedulableNodeZones()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// Virtual nodes are the simulation's own; they never make a zone
	// schedulable by themselves.
	s.SetReplicas(1)
	s.UpsertNode(mkNode("a0", "a", cordoned), t0)
	s.UpsertNode(mkNode("b0", "b"), t0)
	s.AddVirtualPods(1) // lands in b, the only zone with a schedulable node
	s.UpsertNode(mkNode("b0", "b", cordoned), t0)
	if got := s.SchedulableNodeZones(); len(got) != 0 {
		t.Errorf("with only virtual nodes schedulable: %v, want none", got)
	}
}

func TestBindStartingPods(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"a0", "a"}, {"b0", "b"}}, []string{"a0"})
	s.UpsertPod(mkPod(1, "", annotated(evictor.DefaultAnnotation, "true")))
	s.UpsertPod(mkPod(2, "b0", terminating))
	s.UpsertPod(mkPod(5, "b0")) // beyond replicas: untouched
	s.SetReplicas(4)            // pod 3 never seen
	if n := s.BindStartingPods(t0, time.Minute); n != 3 {
		t.Errorf("BindStartingPods() = %d, want 3", n)
	}
	type pod struct {
		Node      string
		Candidate bool
	}
	var got []pod
	for ord := range int32(6) {
		info, _ := s.Pod(ord)
		got = append(got, pod{info.Node, info.Candidate})
	}
	// Zone a hosts one candidate, b none (pod 5 is beyond replicas): the
	// started pods go to b, then a (tie: first seen), then b. The
	// draining one stays draining.
	va, vb := VirtualNodePrefix+"a", VirtualNodePrefix+"b"
	want := []pod{{"a0", true}, {vb, false}, {va, true}, {vb, true}, {}, {"b0", false}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pods (-want +got):\n%s", d)
	}
	if n := s.BindStartingPods(t0, time.Minute); n != 0 {
		t.Errorf("second BindStartingPods() = %d, want 0", n)
	}
}

func TestClearDraining(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"a0", "a"}}, []string{"a0", "a0"})
	s.UpsertPod(mkPod(0, "a0", annotated(evictor.DefaultAnnotation, "true")))
	s.SetDraining(1, true)
	s.SetDraining(7, true)
	if d := cmp.Diff([]int32{}, s.Candidates(), cmpEmpty); d != "" {
		t.Fatalf("Candidates() before (-want +got):\n%s", d)
	}
	for _, ord := range []int32{0, 1, 7, -1} {
		s.ClearDraining(ord)
	}
	if d := cmp.Diff([]int32{0, 1}, s.Candidates()); d != "" {
		t.Errorf("Candidates() after (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int32{}, s.DrainingOrdinals()); d != "" {
		t.Errorf("DrainingOrdinals() (-want +got):\n%s", d)
	}
}

func TestSourceViews(t *testing.T) {
	s := newState(t, 4)
	cluster(s, [][2]string{{"a0", "a"}}, []string{"a0", "a0", "a0"})
	// a: committed on 0 and 5 (beyond replicas), reserved on 1.
	s.Observe(src("a", "1", 3, p(0, 1), p(5, 2)), t0)
	s.Reserve(key("a"), 3, "1", []vsched.Placement{p(1, 3)}, t0)
	// b: committed only, on 1 and 2.
	s.Observe(src("b", "1", 2, p(2, 1), p(1, 1)), t0)
	s.Observe(&vsched.PlainVPod{Key: types.NamespacedName{Namespace: "aa", Name: "c"}, VReplicas: 1, Placements: []vsched.Placement{p(1, 1)}, ResourceVersion: "1"}, t0)

	type each struct {
		VReplicas  int32
		Placements []vsched.Placement
		Held       []Held
	}
	eachSource := func() map[types.NamespacedName]each {
		out := map[types.NamespacedName]each{}
		s.EachSource(func(k types.NamespacedName, n int32, ps []vsched.Placement, held []Held) {
			h := append([]Held(nil), held...) // held is reused
			sort.Slice(h, func(i, j int) bool { return h[i].Ordinal < h[j].Ordinal })
			out[k] = each{n, ps, h}
		})
		return out
	}
	// a's placements are its reservation, but until it is written a still
	// runs its committed vreplicas on 0 and 5: it holds all three pods.
	wantEach := map[types.NamespacedName]each{
		key("a"):                     {3, []vsched.Placement{p(1, 3)}, []Held{{0, 1}, {1, 3}, {5, 2}}},
		key("b"):                     {2, []vsched.Placement{p(1, 1), p(2, 1)}, []Held{{1, 1}, {2, 1}}},
		{Namespace: "aa", Name: "c"}: {1, []vsched.Placement{p(1, 1)}, []Held{{1, 1}}},
	}
	if d := cmp.Diff(wantEach, eachSource()); d != "" {
		t.Errorf("EachSource (-want +got):\n%s", d)
	}

	// Pod 5 still runs a's committed vreplicas until the reservation is
	// written, so it is held and counts.
	if got := s.HighestUsedOrdinal(); got != 5 {
		t.Errorf("HighestUsedOrdinal() = %d, want 5", got)
	}

	got := s.HoldingsOn(func(ord int32) bool { return ord >= 1 })
	want := []Holding{
		{Ordinal: 5, Source: key("a"), VReplicas: 2},
		{Ordinal: 2, Source: key("b"), VReplicas: 1},
		{Ordinal: 1, Source: types.NamespacedName{Namespace: "aa", Name: "c"}, VReplicas: 1},
		{Ordinal: 1, Source: key("a"), VReplicas: 3},
		{Ordinal: 1, Source: key("b"), VReplicas: 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("HoldingsOn(>= 1) (-want +got):\n%s", d)
	}

	// Pod 0: 3 free (a's committed 1), pod 1 over capacity (5 used)
	// counts 0, pod 2: 3.
	if got := s.FreeCapacity(); got != 6 {
		t.Errorf("FreeCapacity() = %d, want 6", got)
	}

	// a's decision is written: pods 0 and 5 are free of it.
	if out := s.Observe(src("a", "2", 3, p(1, 3)), t0); out != Committed {
		t.Fatalf("Observe(a@2) = %v, want Committed", out)
	}
	wantEach[key("a")] = each{3, []vsched.Placement{p(1, 3)}, []Held{{1, 3}}}
	if d := cmp.Diff(wantEach, eachSource()); d != "" {
		t.Errorf("EachSource after the commit (-want +got):\n%s", d)
	}
	if got := s.HighestUsedOrdinal(); got != 2 {
		t.Errorf("HighestUsedOrdinal() after the commit = %d, want 2", got)
	}
	if got := s.HoldingsOn(func(ord int32) bool { return ord >= 1 }); cmp.Diff(want[1:], got) != "" {
		t.Errorf("HoldingsOn(>= 1) after the commit (-want +got):\n%s", cmp.Diff(want[1:], got))
	}
	// Pod 0: 4 free, pod 1: 0, pod 2: 3.
	if got := s.FreeCapacity(); got != 7 {
		t.Errorf("FreeCapacity() after the commit = %d, want 7", got)
	}
	s.SetDraining(0, true)
	if got := s.FreeCapacity(); got != 3 {
		t.Errorf("FreeCapacity() with pod 0 draining = %d, want 3", got)
	}

	empty := newState(t, 1)
	if empty.HighestUsedOrdinal() != -1 || len(empty.HoldingsOn(func(int32) bool { return true })) != 0 || empty.FreeCapacity() != 0 {
		t.Error("empty state holds something")
	}
}
