package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

// TestCheapestCost follows the cheapest cost per dimension (cpu, memory)
// through sources coming, changing their cost, a source without a cost,
// forgetting, a change of pod resources, and clones.
func TestCheapestCost(t *testing.T) {
	s := costedState(t)
	cheapest := func(s *State) [2]int64 { return [2]int64{s.CheapestCost(0), s.CheapestCost(1)} }
	steps := []struct {
		name string
		do   func()
		want [2]int64
	}{
		{"no source", func() {}, [2]int64{0, 0}},
		{"a: 50m, 300Mi", func() { s.Observe(vpod("a", 1, costList("memory", "300Mi", "cpu", "50m")), t0) }, [2]int64{50, 300 * mi}},
		{"b: 100Mi, no cpu", func() { s.Observe(vpod("b", 1, costList("memory", "100Mi")), t0) }, [2]int64{0, 100 * mi}},
		{"b: 20m, 400Mi", func() {
			b := vpod("b", 1, costList("memory", "400Mi", "cpu", "20m"))
			b.ResourceVersion = "2"
			s.Observe(b, t0)
		}, [2]int64{20, 300 * mi}},
		{"plain: no cost", func() { s.Observe(vpod("plain", 1, nil), t0) }, [2]int64{0, 0}},
		{"plain forgotten", func() { s.Forget(key("plain"), t0) }, [2]int64{20, 300 * mi}},
		{"b forgotten", func() { s.Forget(key("b"), t0) }, [2]int64{50, 300 * mi}},
	}
	for _, st := range steps {
		st.do()
		if diff := cmp.Diff(st.want, cheapest(s)); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", st.name, diff)
		}
	}
	// A copy for a few sources still counts the others' costs.
	s.Observe(vpod("c", 1, costList("memory", "200Mi", "cpu", "100m")), t0)
	if diff := cmp.Diff([2]int64{50, 200 * mi}, cheapest(s.CloneFor([]types.NamespacedName{key("a")}))); diff != "" {
		t.Errorf("CloneFor (-want +got):\n%s", diff)
	}
	// A clone changes on its own.
	c := s.Clone()
	c.Forget(key("c"), t0)
	if got, want := [2][2]int64{cheapest(s), cheapest(c)}, [2][2]int64{{50, 200 * mi}, {50, 300 * mi}}; got != want {
		t.Errorf("original and clone %v, want %v", got, want)
	}
	// Memory only: counted again in the new dimensions.
	if err := s.SetPodResources(costList("memory", "2Gi")); err != nil {
		t.Fatal(err)
	}
	if got := s.CheapestCost(0); got != 200*mi {
		t.Errorf("after new pod resources: %d, want %d", got, 200*mi)
	}
}
