package descheduler_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
)

func TestPlanShed(t *testing.T) {
	key := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: n} }
	share := func(n string, v int32, w ...int64) descheduler.HotShare {
		return descheduler.HotShare{Source: key(n), VReplicas: v, Weight: w}
	}
	move := func(n string, v int32) evictor.Move { return evictor.Move{Source: key(n), VReplicas: v} }
	abc := []descheduler.HotShare{share("a", 3, 100), share("b", 2, 300), share("c", 4, 50)}
	for _, tc := range []struct {
		name          string
		shares        []descheduler.HotShare
		need          []int64
		cycle, source int32
		want          []evictor.Move
		covered       bool
	}{
		{"one heavy vreplica does", abc, []int64{250}, 100, 10, []evictor.Move{move("b", 1)}, true},
		{"exactly the weight of one", abc, []int64{300}, 100, 10, []evictor.Move{move("b", 1)}, true},
		{"heaviest first, then the next", abc, []int64{700}, 100, 10, []evictor.Move{move("b", 2), move("a", 1)}, true},
		{"per-source limit", abc, []int64{700}, 100, 1, []evictor.Move{move("b", 1), move("a", 1), move("c", 1)}, false},
		{"per-cycle limit", abc, []int64{700}, 2, 10, []evictor.Move{move("b", 2)}, false},
		{"more than there is", abc, []int64{5000}, 100, 10, []evictor.Move{move("b", 2), move("a", 3), move("c", 4)}, false},
		{"nothing over", abc, []int64{0}, 100, 10, nil, true},
		{"ties: more vreplicas, then key", []descheduler.HotShare{share("y", 1, 100), share("x", 1, 100), share("z", 2, 100)},
			[]int64{250}, 100, 10, []evictor.Move{move("z", 2), move("x", 1)}, true},
		{"two resources: each vreplica by its larger share", []descheduler.HotShare{share("mem", 2, 400, 0), share("cpu", 2, 0, 500), share("both", 2, 200, 200)},
			[]int64{400, 400}, 100, 10, []evictor.Move{move("cpu", 1), move("mem", 1)}, true},
		{"weightless sources never move", []descheduler.HotShare{share("a", 3, 0)}, []int64{100}, 100, 10, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, covered := descheduler.PlanShed(tc.shares, tc.need, tc.cycle, tc.source)
			if diff := cmp.Diff(tc.want, got); diff != "" || covered != tc.covered {
				t.Errorf("covered %v (want %v), moves (-want +got):\n%s", covered, tc.covered, diff)
			}
		})
	}
}
