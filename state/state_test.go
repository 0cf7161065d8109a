package state

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		want    Options
		wantErr string
	}{
		{name: "no name", opts: Options{Capacity: 1}, wantErr: "StatefulSetName"},
		{name: "zero capacity", opts: Options{StatefulSetName: sts}, wantErr: "Capacity"},
		{name: "negative capacity", opts: Options{StatefulSetName: sts, Capacity: -3}, wantErr: "Capacity"},
		{
			name: "defaults",
			opts: Options{StatefulSetName: sts, Capacity: 4},
			want: Options{StatefulSetName: sts, Capacity: 4, DrainingAnnotation: evictor.DefaultAnnotation, ZoneLabel: DefaultZoneLabel},
		},
		{
			name: "explicit",
			opts: Options{StatefulSetName: sts, Capacity: 4, DrainingAnnotation: "d", ZoneLabel: "z"},
			want: Options{StatefulSetName: sts, Capacity: 4, DrainingAnnotation: "d", ZoneLabel: "z"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("New() error = %v, want one mentioning %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, s.Options()); d != "" {
				t.Errorf("Options() (-want +got):\n%s", d)
			}
			if s.Capacity() != tc.want.Capacity || s.Replicas() != 0 || s.NumPods() != 0 || len(s.Candidates()) != 0 {
				t.Errorf("new state not empty")
			}
		})
	}
}

// TestCandidateRules covers every reason a pod is not a candidate, one at a
// time, on pod 0 of a one-replica StatefulSet.
func TestCandidateRules(t *testing.T) {
	ready := func() *corev1.Node { return mkNode("n0", "z") }
	bound := func(opts ...podOpt) *corev1.Pod { return mkPod(0, "n0", opts...) }
	info := func(candidate bool, reason string) framework.PodInfo {
		return framework.PodInfo{Name: "adapter-0", Node: "n0", Zone: "z", Candidate: candidate, Reason: reason}
	}
	tests := []struct {
		name     string
		opts     Options
		node     *corev1.Node
		pod      *corev1.Pod
		replicas int32
		after    func(*State)
		want     framework.PodInfo
		wantOK   bool
	}{
		{name: "bound to a ready node", node: ready(), pod: bound(), want: info(true, ""), wantOK: true},
		{name: "a pod need not be Ready", node: ready(), pod: bound(notReadyPod), want: info(true, ""), wantOK: true},
		{name: "unrelated taint", node: mkNode("n0", "z", tainted("dedicated", corev1.TaintEffectNoSchedule)), pod: bound(), want: info(true, ""), wantOK: true},
		{name: "draining annotation false", node: ready(), pod: bound(annotated(evictor.DefaultAnnotation, "false")), want: info(true, ""), wantOK: true},
		{name: "missing pod", node: ready()},
		{name: "deleted pod", node: ready(), pod: bound(), after: func(s *State) { s.DeletePod("adapter-0") }},
		{name: "terminating", node: ready(), pod: bound(terminating), want: info(false, "pod is terminating"), wantOK: true},
		{
			name: "unbound", node: ready(), pod: mkPod(0, ""), wantOK: true,
			want: framework.PodInfo{Name: "adapter-0", NodeIndex: -1, ZoneIndex: -1, Reason: "pod is not bound to a node"},
		},
		{name: "draining annotation true", node: ready(), pod: bound(annotated(evictor.DefaultAnnotation, "true")), want: info(false, "pod is draining"), wantOK: true},
		{name: "draining annotation empty", node: ready(), pod: bound(annotated(evictor.DefaultAnnotation, "")), want: info(false, "pod is draining"), wantOK: true},
		{
			name: "custom draining annotation", opts: Options{DrainingAnnotation: "example.com/drain"},
			node: ready(), pod: bound(annotated("example.com/drain", "yes")), want: info(false, "pod is draining"), wantOK: true,
		},
		{
			name: "default annotation ignored when customised", opts: Options{DrainingAnnotation: "example.com/drain"},
			node: ready(), pod: bound(annotated(evictor.DefaultAnnotation, "true")), want: info(true, ""), wantOK: true,
		},
		{name: "draining in memory", node: ready(), pod: bound(), after: func(s *State) { s.SetDraining(0, true) }, want: info(false, "pod is draining"), wantOK: true},
		{
			name: "beyond replicas", node: ready(), pod: bound(), replicas: -1, // SetReplicas(0)
			want: info(false, "ordinal 0 is at or above the StatefulSet's 0 replicas"), wantOK: true,
		},
		{
			name: "node not seen yet", pod: bound(), wantOK: true,
			want: framework.PodInfo{Name: "adapter-0", Node: "n0", ZoneIndex: -1, Reason: "node n0 does not exist"},
		},
		{name: "node deleted", node: ready(), pod: bound(), after: func(s *State) { s.DeleteNode("n0") }, want: info(false, "node n0 does not exist"), wantOK: true},
		{name: "cordoned", node: mkNode("n0", "z", cordoned), pod: bound(), want: info(false, "node n0: node is cordoned"), wantOK: true},
		{name: "NotReady", node: mkNode("n0", "z", readyStatus(corev1.ConditionFalse)), pod: bound(), want: info(false, "node n0: node is not Ready"), wantOK: true},
		{name: "Ready unknown", node: mkNode("n0", "z", readyStatus(corev1.ConditionUnknown)), pod: bound(), want: info(false, "node n0: node is not Ready"), wantOK: true},
		{name: "no Ready condition", node: mkNode("n0", "z", noReadyCondition), pod: bound(), want: info(false, "node n0: node is not Ready"), wantOK: true},
		{
			name: "unreachable taint", node: mkNode("n0", "z", tainted(TaintNodeUnreachable, corev1.TaintEffectNoExecute)), pod: bound(),
			want: info(false, "node n0: tainted node.kubernetes.io/unreachable"), wantOK: true,
		},
		{
			name: "not-ready taint", node: mkNode("n0", "z", tainted(TaintNodeNotReady, corev1.TaintEffectNoSchedule)), pod: bound(),
			want: info(false, "node n0: tainted node.kubernetes.io/not-ready"), wantOK: true,
		},
		{
			name: "zone from a custom label", opts: Options{ZoneLabel: "example.com/zone"},
			node: func() *corev1.Node { n := mkNode("n0", "other"); n.Labels["example.com/zone"] = "z"; return n }(),
			pod:  bound(), want: info(true, ""), wantOK: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.StatefulSetName, opts.Capacity = sts, 3
			s, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.node != nil {
				s.UpsertNode(tc.node, t0)
			}
			if tc.pod != nil {
				s.UpsertPod(tc.pod)
			}
			s.SetReplicas(1 + tc.replicas)
			if tc.after != nil {
				tc.after(s)
			}
			got, ok := s.Pod(0)
			if ok != tc.wantOK {
				t.Fatalf("Pod(0) ok = %v, want %v", ok, tc.wantOK)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Pod(0) (-want +got):\n%s", d)
			}
			if s.IsCandidate(0) != tc.want.Candidate {
				t.Errorf("IsCandidate(0) = %v, want %v", s.IsCandidate(0), tc.want.Candidate)
			}
			wantNode, wantZone := got.NodeIndex, got.ZoneIndex
			if !ok {
				wantNode, wantZone = -1, -1
			}
			if node, zone, cand, known := s.PodPlace(0); node != wantNode || zone != wantZone || cand != got.Candidate || known != ok {
				t.Errorf("PodPlace(0) = %d, %d, %v, %v, want %d, %d, %v, %v", node, zone, cand, known, wantNode, wantZone, got.Candidate, ok)
			}
			var wantCands []int32
			if tc.want.Candidate {
				wantCands = []int32{0}
			}
			if d := cmp.Diff(wantCands, s.Candidates(), cmpEmpty); d != "" {
				t.Errorf("Candidates() (-want +got):\n%s", d)
			}
			if want := len(wantCands); s.FreeCandidates() != want {
				t.Errorf("FreeCandidates() = %d, want %d", s.FreeCandidates(), want)
			}
		})
	}
}

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmp.Comparer(func(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
})

func TestPodOutOfRange(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0"})
	for _, ord := range []int32{-1, 1, 1 << 30} {
		if _, ok := s.Pod(ord); ok || s.IsCandidate(ord) {
			t.Errorf("Pod(%d) ok %v, IsCandidate %v", ord, ok, s.IsCandidate(ord))
		}
		if node, zone, cand, known := s.PodPlace(ord); node != -1 || zone != -1 || cand || known {
			t.Errorf("PodPlace(%d) = %d, %d, %v, %v, want -1, -1, false, false", ord, node, zone, cand, known)
		}
		if s.Free(ord) != 0 || s.Used(ord) != 0 || s.PodExists(ord) || !s.NodeUnavailableSince(ord).IsZero() {
			t.Errorf("ordinal %d: Free %d Used %d Exists %v", ord, s.Free(ord), s.Used(ord), s.PodExists(ord))
		}
	}
	for _, i := range []int32{-1, 1} {
		if s.NodeName(i) != "" || s.ZoneName(i) != "" {
			t.Errorf("NodeName(%d) = %q, ZoneName(%d) = %q; want empty", i, s.NodeName(i), i, s.ZoneName(i))
		}
	}
}

func TestSchedulableDomains(t *testing.T) {
	s := newState(t, 2)
	for _, n := range []*corev1.Node{
		mkNode("a1", "a"),
		mkNode("a2", "a"),
		mkNode("b1", "b"),
		mkNode("c1", "c"),           // no pod at all
		mkNode("d1", "d", cordoned), // only a pod that is no candidate
		mkNode("x", ""),             // no zone label
		mkNode("a3", "a"),           // hosts only a draining pod
	} {
		s.UpsertNode(n, t0)
	}
	pods := []string{"a1", "b1", "a1", "d1", "x", "a3"}
	for i, n := range pods {
		s.UpsertPod(mkPod(int32(i), n))
	}
	s.SetReplicas(int32(len(pods)))
	s.SetDraining(5, true)
	type view struct {
		NumNodes, NumZones int
		Nodes, Zones       []string
		Candidates         []int32
	}
	got := view{NumNodes: s.NumNodes(), NumZones: s.NumZones(), Candidates: s.Candidates()}
	for _, i := range s.SchedulableNodes() {
		got.Nodes = append(got.Nodes, s.NodeName(i))
	}
	for _, i := range s.SchedulableZones() {
		got.Zones = append(got.Zones, s.ZoneName(i))
	}
	want := view{NumNodes: 7, NumZones: 4, Nodes: []string{"a1", "b1", "x"}, Zones: []string{"a", "b"}, Candidates: []int32{0, 1, 2, 4}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// Pod 4's node has no zone: it counts as a node but in no zone.
	info, _ := s.Pod(4)
	if info.ZoneIndex != -1 || info.Zone != "" || info.NodeIndex < 0 {
		t.Errorf("Pod(4) = %+v; want a node and no zone", info)
	}
}

func TestNodeArrivesAfterPod(t *testing.T) {
	s := newState(t, 2)
	s.SetReplicas(2)
	if grew := s.UpsertPod(mkPod(1, "late")); grew {
		t.Error("UpsertPod on an unknown node reported new capacity")
	}
	if s.NumNodes() != 1 || s.NodeName(0) != "late" || s.NumZones() != 0 {
		t.Fatalf("placeholder: NumNodes %d NodeName(0) %q NumZones %d", s.NumNodes(), s.NodeName(0), s.NumZones())
	}
	if len(s.Candidates()) != 0 || len(s.SchedulableNodes()) != 0 {
		t.Error("pod on a placeholder node is a candidate")
	}
	s.UpsertNode(mkNode("early", "z1"), t0)
	if grew := s.UpsertNode(mkNode("late", "z2"), t0); !grew {
		t.Error("the placeholder's node arriving did not report new capacity")
	}
	got, _ := s.Pod(1)
	want := framework.PodInfo{Ordinal: 1, Name: "adapter-1", Node: "late", NodeIndex: 0, Zone: "z2", ZoneIndex: 1, Candidate: true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Pod(1) (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"late", "early"}, []string{s.NodeName(0), s.NodeName(1)}); d != "" {
		t.Errorf("node indexes changed (-want +got):\n%s", d)
	}
}

func TestSetReplicas(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0"})
	steps := []struct {
		n         int32
		wantRepl  int32
		wantCands []int32
	}{
		{1, 1, []int32{0}},
		{-5, 0, nil},
		{5, 5, []int32{0, 1, 2}},
		{5, 5, []int32{0, 1, 2}},
	}
	for _, st := range steps {
		s.SetReplicas(st.n)
		if s.Replicas() != st.wantRepl {
			t.Errorf("SetReplicas(%d): Replicas() = %d, want %d", st.n, s.Replicas(), st.wantRepl)
		}
		if d := cmp.Diff(st.wantCands, s.Candidates(), cmpEmpty); d != "" {
			t.Errorf("SetReplicas(%d): Candidates() (-want +got):\n%s", st.n, d)
		}
	}
	if s.NumPods() != 5 {
		t.Errorf("NumPods() = %d, want 5", s.NumPods())
	}
	if !s.PodExists(2) || s.PodExists(3) {
		t.Error("PodExists wrong")
	}
}

func TestSetCapacityLeavesPodsOverCapacity(t *testing.T) {
	s := newState(t, 4)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0"})
	s.Observe(src("a", "1", 7, p(0, 4), p(1, 3)), t0)
	if err := s.SetCapacity(0); err == nil {
		t.Error("SetCapacity(0) succeeded")
	}
	type view struct {
		Capacity  int32
		Free      []int32
		FreeCands int
		Total     int64
	}
	look := func() view { return view{s.Capacity(), freeAll(s, 3), s.FreeCandidates(), s.TotalUsed()} }
	if d := cmp.Diff(view{4, []int32{0, 1, 4}, 2, 7}, look()); d != "" {
		t.Errorf("capacity 4 (-want +got):\n%s", d)
	}
	if err := s.SetCapacity(2); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(view{2, []int32{-2, -1, 2}, 1, 7}, look()); d != "" {
		t.Errorf("capacity 2 (-want +got):\n%s", d)
	}
	if got, _ := s.Placements(key("a")); vsched.TotalVReplicas(got) != 7 {
		t.Errorf("shrinking capacity moved vreplicas: %v", got)
	}
	if err := s.SetCapacity(5); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(view{5, []int32{1, 2, 5}, 3, 7}, look()); d != "" {
		t.Errorf("capacity 5 (-want +got):\n%s", d)
	}
}

func TestHighestUsedOrdinal(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0"})
	if got := s.HighestUsedOrdinal(); got != -1 {
		t.Errorf("empty: HighestUsedOrdinal() = %d, want -1", got)
	}
	s.Observe(src("a", "1", 3, p(1, 3)), t0)
	// A reservation beyond replicas counts: the StatefulSet must not
	// shrink under it.
	s.Reserve(key("b"), 2, "1", []vsched.Placement{p(7, 2)}, t0)
	if got := s.HighestUsedOrdinal(); got != 7 {
		t.Errorf("HighestUsedOrdinal() = %d, want 7", got)
	}
	s.Forget(key("b"), t0)
	if got := s.HighestUsedOrdinal(); got != 1 {
		t.Errorf("after Forget: HighestUsedOrdinal() = %d, want 1", got)
	}
}

func TestEachFreeCandidate(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "a"}, {"n1", "b"}}, []string{"n0", "n1", "n0", "n0", "n0", "n1"})
	s.SetDraining(3, true)
	each := func(node int32, limit int) []int32 {
		var out []int32
		s.EachFreeCandidate(node, func(ord int32) bool { out = append(out, ord); return len(out) < limit })
		return out
	}
	type view struct{ N0, N0First, N1, Bad1, Bad2 []int32 }
	look := func() view { return view{each(0, 10), each(0, 1), each(1, 10), each(-1, 10), each(2, 10)} }
	if d := cmp.Diff(view{N0: []int32{0, 2, 4}, N0First: []int32{0}, N1: []int32{1, 5}}, look()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	s.Observe(src("a", "1", 4, p(0, 2), p(2, 2)), t0)
	if d := cmp.Diff(view{N0: []int32{4}, N0First: []int32{4}, N1: []int32{1, 5}}, look()); d != "" {
		t.Errorf("after filling 0 and 2 (-want +got):\n%s", d)
	}
	// Freeing a pod below the first known free one must bring it back.
	s.Observe(src("a", "2", 2, p(2, 2)), t0)
	if d := cmp.Diff(view{N0: []int32{0, 4}, N0First: []int32{0}, N1: []int32{1, 5}}, look()); d != "" {
		t.Errorf("after freeing 0 (-want +got):\n%s", d)
	}
}

func TestDrainingOrdinals(t *testing.T) {
	s := newState(t, 2)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0", "n0"})
	s.UpsertPod(mkPod(1, "n0", annotated(evictor.DefaultAnnotation, "true")))
	s.UpsertPod(mkPod(2, "n0", annotated(evictor.DefaultAnnotation, "true")))
	s.UpsertPod(mkPod(3, "n0", annotated(evictor.DefaultAnnotation, "false")))
	s.SetDraining(2, true)
	s.SetDraining(9, true) // a pod not created yet
	type view struct {
		Ordinals   []int32
		Draining   []bool
		Candidates []int32
	}
	look := func() view {
		v := view{Ordinals: s.DrainingOrdinals(), Candidates: s.Candidates()}
		for _, o := range []int32{-1, 0, 1, 2, 3, 9, 10} {
			v.Draining = append(v.Draining, s.Draining(o))
		}
		return v
	}
	if d := cmp.Diff(view{[]int32{1, 2, 9}, []bool{false, false, true, true, false, true, false}, []int32{0, 3}}, look()); d != "" {
		t.Errorf("marked (-want +got):\n%s", d)
	}
	// Pods recreated without the annotation: only memory keeps one draining.
	s.DeletePod("adapter-1")
	s.DeletePod("adapter-2")
	s.UpsertPod(mkPod(1, "n0"))
	s.UpsertPod(mkPod(2, "n0"))
	if d := cmp.Diff(view{[]int32{2, 9}, []bool{false, false, false, true, false, true, false}, []int32{0, 1, 3}}, look()); d != "" {
		t.Errorf("after recreation (-want +got):\n%s", d)
	}
	s.SetDraining(2, false)
	s.SetDraining(9, false)
	if d := cmp.Diff(view{[]int32{}, []bool{false, false, false, false, false, false, false}, []int32{0, 1, 2, 3}}, look()); d != "" {
		t.Errorf("after clearing (-want +got):\n%s", d)
	}
}

// model is an independent, brute-force account of what State tracks
// incrementally.
type model struct {
	capacity int32
	replicas int32
	pods     map[int32]string // ordinal -> node ("" unbound), existing pods only
	drainAnn map[int32]bool
	drainMem map[int32]bool
	badNode  map[string]bool // cordoned or failed
	used     map[types.NamespacedName][]vsched.Placement
}

func (m *model) usedOn(ord int32) int32 {
	var n int32
	for _, ps := range m.used {
		for _, pl := range ps {
			if pl.PodName == vsched.PodName(sts, ord) {
				n += pl.VReplicas
			}
		}
	}
	return n
}

func (m *model) candidate(ord int32) bool {
	node, ok := m.pods[ord]
	return ok && ord < m.replicas && node != "" && !m.drainAnn[ord] && !m.drainMem[ord] && !m.badNode[node]
}

// TestFreeCapacityRandomized drives State with random pod, node, replica,
// capacity and source changes and checks after each one that free
// capacity, candidates and FreeCandidates equal a recount from scratch.
func TestFreeCapacityRandomized(t *testing.T) {
	const (
		maxOrd = 12
		steps  = 2000
	)
	nodes := []string{"n0", "n1", "n2", "n3"}
	for seed := int64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			s := newState(t, 5)
			m := &model{capacity: 5, pods: map[int32]string{}, drainAnn: map[int32]bool{}, drainMem: map[int32]bool{}, badNode: map[string]bool{}, used: map[types.NamespacedName][]vsched.Placement{}}
			for i, n := range nodes {
				s.UpsertNode(mkNode(n, fmt.Sprint("z", i%2)), t0)
			}
			now := t0
			rvs := map[types.NamespacedName]int{}
			randPlacements := func() []vsched.Placement {
				var ps []vsched.Placement
				for range r.Intn(4) {
					ps = append(ps, p(int32(r.Intn(maxOrd)), int32(1+r.Intn(4))))
				}
				return ps
			}
			for step := range steps {
				now = now.Add(time.Second)
				k := key(fmt.Sprint("s", r.Intn(6)))
				var op string
				switch r.Intn(11) {
				case 0:
					ord := int32(r.Intn(maxOrd))
					node := nodes[r.Intn(len(nodes))]
					if r.Intn(5) == 0 {
						node = ""
					}
					drain := r.Intn(4) == 0
					pod := mkPod(ord, node)
					if drain {
						annotated(evictor.DefaultAnnotation, "true")(pod)
					}
					op = fmt.Sprintf("UpsertPod(%d on %q, draining %v)", ord, node, drain)
					s.UpsertPod(pod)
					m.pods[ord], m.drainAnn[ord] = node, drain
				case 1:
					ord := int32(r.Intn(maxOrd))
					op = fmt.Sprintf("DeletePod(%d)", ord)
					s.DeletePod(vsched.PodName(sts, ord))
					delete(m.pods, ord)
				case 2:
					n := nodes[r.Intn(len(nodes))]
					var opts []nodeOpt
					bad := r.Intn(2) == 0
					if bad {
						opts = append(opts, [](nodeOpt){cordoned, readyStatus(corev1.ConditionFalse), tainted(TaintNodeUnreachable, corev1.TaintEffectNoExecute)}[r.Intn(3)])
					}
					op = fmt.Sprintf("UpsertNode(%s, bad %v)", n, bad)
					s.UpsertNode(mkNode(n, "z", opts...), now)
					m.badNode[n] = bad
				case 3:
					n := int32(r.Intn(maxOrd + 1))
					op = fmt.Sprintf("SetReplicas(%d)", n)
					s.SetReplicas(n)
					m.replicas = n
				case 4:
					c := int32(1 + r.Intn(8))
					op = fmt.Sprintf("SetCapacity(%d)", c)
					if err := s.SetCapacity(c); err != nil {
						t.Fatal(err)
					}
					m.capacity = c
				case 5:
					ord, on := int32(r.Intn(maxOrd)), r.Intn(2) == 0
					op = fmt.Sprintf("SetDraining(%d, %v)", ord, on)
					s.SetDraining(ord, on)
					m.drainMem[ord] = on
				case 6, 7:
					ps := randPlacements()
					op = fmt.Sprintf("Reserve(%s, %v)", k, ps)
					s.Reserve(k, vsched.TotalVReplicas(ps), fmt.Sprint(rvs[k]), ps, now)
				case 8:
					rvs[k]++
					ps := randPlacements()
					if r.Intn(2) == 0 {
						if res, ok := s.ReservationOf(k); ok {
							ps = res.Placements // the reservation gets committed
						}
					}
					op = fmt.Sprintf("Observe(%s@%d, %v)", k, rvs[k], ps)
					s.Observe(src(k.Name, fmt.Sprint(rvs[k]), vsched.TotalVReplicas(ps), ps...), now)
				case 9:
					op = fmt.Sprintf("Forget(%s)", k)
					s.Forget(k, now)
				case 10:
					if r.Intn(2) == 0 {
						op = "ExpireReservations"
						s.ExpireReservations(now, time.Duration(r.Intn(20))*time.Second)
					} else {
						op = fmt.Sprintf("ExpireOne(%s)", k)
						s.ExpireOne(k)
					}
				}
				// The model reads what each source counts from the
				// state's public view of it.
				m.used = map[types.NamespacedName][]vsched.Placement{}
				for _, k := range s.Sources() {
					m.used[k] = counted(s, k)
				}
				// Read FreeCandidates first: the incremental count must be
				// right without a recomputation triggered by another call.
				gotFreeCands := s.FreeCandidates()
				var wantCands []int32
				wantFreeCands := 0
				var total int64
				for ord := int32(0); ord < maxOrd; ord++ {
					used := m.usedOn(ord)
					total += int64(used)
					if s.Used(ord) != used {
						t.Fatalf("step %d (%s): Used(%d) = %d, recount %d", step, op, ord, s.Used(ord), used)
					}
					wantFree := int32(0)
					if _, ok := m.pods[ord]; ok {
						wantFree = m.capacity - used
					}
					if s.Free(ord) != wantFree {
						t.Fatalf("step %d (%s): Free(%d) = %d, recount %d", step, op, ord, s.Free(ord), wantFree)
					}
					if m.candidate(ord) {
						wantCands = append(wantCands, ord)
						if wantFree > 0 {
							wantFreeCands++
						}
					}
				}
				if gotFreeCands != wantFreeCands {
					t.Fatalf("step %d (%s): FreeCandidates() = %d, recount %d", step, op, gotFreeCands, wantFreeCands)
				}
				if d := cmp.Diff(wantCands, s.Candidates(), cmpEmpty); d != "" {
					t.Fatalf("step %d (%s): Candidates() (-recount +got):\n%s", step, op, d)
				}
				for n := range int32(s.NumNodes()) {
					var want, got []int32
					for _, ord := range wantCands {
						if m.pods[ord] == s.NodeName(n) && s.Free(ord) > 0 {
							want = append(want, ord)
						}
					}
					s.EachFreeCandidate(n, func(ord int32) bool { got = append(got, ord); return true })
					if d := cmp.Diff(want, got, cmpEmpty); d != "" {
						t.Fatalf("step %d (%s): EachFreeCandidate(%s) (-recount +got):\n%s", step, op, s.NodeName(n), d)
					}
				}
				if s.TotalUsed() != total {
					t.Fatalf("step %d (%s): TotalUsed() = %d, recount %d", step, op, s.TotalUsed(), total)
				}
				checkZoneIndex(t, s, fmt.Sprintf("step %d (%s)", step, op))
				if step%50 == 0 {
					// A clone's index (copy on write) is the same, and
					// stays its own.
					c := s.Clone()
					checkZoneIndex(t, c, fmt.Sprintf("step %d (%s), clone", step, op))
					c.Reserve(key("clone-only"), 3, "", []vsched.Placement{p(0, 1), p(1, 1), p(2, 1)}, now)
					checkZoneIndex(t, c, fmt.Sprintf("step %d (%s), clone after a reservation", step, op))
					checkZoneIndex(t, s, fmt.Sprintf("step %d (%s), after the clone's reservation", step, op))
				}
			}
		})
	}
}

// counted is what a source charges against capacity, by the rule the state
// documents: its committed placements, and while a reservation is
// outstanding, per pod the larger of the committed and the reserved count.
func counted(s *State, k types.NamespacedName) []vsched.Placement {
	committed, _ := s.Committed(k)
	res, ok := s.ReservationOf(k)
	if !ok {
		return committed
	}
	per := map[string]int32{}
	for _, p := range committed {
		per[p.PodName] += p.VReplicas
	}
	reserved := map[string]int32{}
	for _, p := range res.Placements {
		if p.VReplicas > 0 {
			reserved[p.PodName] += p.VReplicas
		}
	}
	for name, n := range reserved {
		per[name] = max(per[name], n)
	}
	var out []vsched.Placement
	for name, n := range per {
		out = append(out, vsched.Placement{PodName: name, VReplicas: n})
	}
	return out
}
