package state

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched"
)

const mi = int64(1 << 20 * 1000) // one MiB in milli-bytes

func costList(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

// costedState has two pods of capacity 10 on one node, each with 1Gi of
// memory and 1 CPU.
func costedState(t *testing.T) *State {
	t.Helper()
	s, err := New(Options{StatefulSetName: sts, Capacity: 10, PodResources: costList("memory", "1Gi", "cpu", "1")})
	if err != nil {
		t.Fatal(err)
	}
	s.UpsertNode(mkNode("n0", "za"), t0)
	s.UpsertPod(mkPod(0, "n0"))
	s.UpsertPod(mkPod(1, "n0"))
	s.SetReplicas(2)
	return s
}

// use is every pod's use per dimension (cpu, memory: sorted).
func use(s *State) map[int32][2]int64 {
	out := map[int32][2]int64{}
	for ord := int32(0); ord < 2; ord++ {
		if u := [2]int64{s.ResourceUsed(ord, 0), s.ResourceUsed(ord, 1)}; u != ([2]int64{}) {
			out[ord] = u
		}
	}
	return out
}

func vpod(name string, n int32, cost corev1.ResourceList, ps ...vsched.Placement) *vsched.PlainVPod {
	return &vsched.PlainVPod{Key: key(name), VReplicas: n, Placements: ps, ResourceVersion: "1", Cost: cost}
}

// TestCostCounting follows one source's cost through observing,
// reserving, committing, a change of cost, a change of pod resources and
// forgetting, with exact use per pod.
func TestCostCounting(t *testing.T) {
	s := costedState(t)
	if got := s.ResourceNames(); !cmp.Equal(got, []corev1.ResourceName{"cpu", "memory"}) {
		t.Fatalf("ResourceNames = %v", got)
	}
	if s.ResourceCapacity(0) != 1000 || s.ResourceCapacity(1) != 1024*mi {
		t.Fatalf("capacities %d, %d", s.ResourceCapacity(0), s.ResourceCapacity(1))
	}
	a := vpod("a", 3, costList("memory", "100Mi", "cpu", "50m"), p(0, 3))
	s.Observe(a, t0)
	s.Observe(vpod("plain", 4, nil, p(0, 2), p(1, 2)), t0)
	want := map[int32][2]int64{0: {150, 300 * mi}}
	if diff := cmp.Diff(want, use(s)); diff != "" || !s.Costed() {
		t.Fatalf("after observing (-want +got):\n%s (costed %v)", diff, s.Costed())
	}
	// A reservation counts the larger of committed and reserved per pod.
	s.Reserve(key("a"), 3, "1", []vsched.Placement{p(0, 1), p(1, 2)}, t0)
	want = map[int32][2]int64{0: {150, 300 * mi}, 1: {100, 200 * mi}}
	if diff := cmp.Diff(want, use(s)); diff != "" {
		t.Fatalf("after reserving (-want +got):\n%s", diff)
	}
	// Committed: pod 0 keeps one.
	a2 := vpod("a", 3, a.Cost, p(0, 1), p(1, 2))
	a2.ResourceVersion = "2"
	if out := s.Observe(a2, t0); out != Committed {
		t.Fatalf("outcome %v", out)
	}
	want = map[int32][2]int64{0: {50, 100 * mi}, 1: {100, 200 * mi}}
	if diff := cmp.Diff(want, use(s)); diff != "" {
		t.Fatalf("after committing (-want +got):\n%s", diff)
	}
	// The cost doubles: every pod is counted again.
	a3 := vpod("a", 3, costList("memory", "200Mi"), p(0, 1), p(1, 2))
	a3.ResourceVersion = "3"
	s.Observe(a3, t0)
	want = map[int32][2]int64{0: {0, 200 * mi}, 1: {0, 400 * mi}}
	if diff := cmp.Diff(want, use(s)); diff != "" {
		t.Fatalf("after the cost changed (-want +got):\n%s", diff)
	}
	// Pods lose their CPU dimension: memory is now dimension 0.
	if err := s.SetPodResources(costList("memory", "2Gi")); err != nil {
		t.Fatal(err)
	}
	if got := [3]int64{s.ResourceUsed(0, 0), s.ResourceUsed(1, 0), s.ResourceCapacity(0)}; got != [3]int64{200 * mi, 400 * mi, 2048 * mi} {
		t.Fatalf("after new pod resources: use %d, %d, capacity %d", got[0], got[1], got[2])
	}
	s.Forget(key("a"), t0)
	if s.ResourceUsed(0, 0) != 0 || s.ResourceUsed(1, 0) != 0 || s.Costed() {
		t.Fatalf("after forgetting: %d, %d, costed %v", s.ResourceUsed(0, 0), s.ResourceUsed(1, 0), s.Costed())
	}
}

// TestCostClone checks that a clone counts its own changes.
func TestCostClone(t *testing.T) {
	s := costedState(t)
	s.Observe(vpod("a", 1, costList("memory", "100Mi"), p(0, 1)), t0)
	c := s.Clone()
	c.Reserve(key("a"), 1, "1", []vsched.Placement{p(0, 1), p(1, 1)}, t0)
	if s.ResourceUsed(1, 1) != 0 || c.ResourceUsed(1, 1) != 100*mi || c.ResourceUsed(0, 1) != 100*mi {
		t.Fatalf("original %d, clone %d/%d", s.ResourceUsed(1, 1), c.ResourceUsed(0, 1), c.ResourceUsed(1, 1))
	}
	if got := c.SourceCost(key("a")); !cmp.Equal(got, []int64{0, 100 * mi}) {
		t.Fatalf("clone's SourceCost = %v", got)
	}
}

// TestCostBounds checks the bounds: pod resources out of range are
// refused, a cost beyond vsched.MaxCost is counted as MaxCost, and sums
// saturate.
func TestCostBounds(t *testing.T) {
	if _, err := New(Options{StatefulSetName: sts, Capacity: 1, PodResources: costList("memory", "-1")}); err == nil {
		t.Error("a negative pod resource must be refused")
	}
	s := costedState(t)
	if err := s.SetPodResources(costList("memory", "10Ei")); err == nil {
		t.Error("a pod resource above 2^62 milli-units must be refused")
	}
	// 82 sources of 100 vreplicas at MaxCost (2^50) each pass 2^63 on
	// one pod.
	for i := range 82 {
		s.Observe(vpod(fmt.Sprint("s", i), 100, costList("memory", "8Ei"), p(0, 100)), t0)
	}
	if got := s.ResourceUsed(0, 1); got != math.MaxInt64 {
		t.Errorf("use = %d, want it saturated at MaxInt64", got)
	}
	if got := s.SourceCost(key("s0"))[1]; got != vsched.MaxCost {
		t.Errorf("cost = %d, want MaxCost", got)
	}
}

// TestNoCostNoDimensions checks that a source without a cost, or pods
// without resources, leave the cost side empty.
func TestNoCostNoDimensions(t *testing.T) {
	s := newState(t, 10)
	s.Observe(vpod("a", 1, costList("memory", "1Gi"), p(0, 1)), t0)
	if s.Costed() || s.SourceCost(key("a")) != nil || len(s.ResourceNames()) != 0 {
		t.Error("without pod resources a cost must not count")
	}
	if got := s.CostOf(key("a")); got.Memory().String() != "1Gi" {
		t.Errorf("CostOf = %v", got)
	}
	c := costedState(t)
	c.Observe(vpod("plain", 2, nil, p(0, 2)), t0)
	if c.Costed() || len(c.costs.use) != 0 {
		t.Error("a source without a cost must not touch the use")
	}
}
