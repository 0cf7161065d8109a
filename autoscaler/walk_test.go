package autoscaler

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/state"
)

// walkView is what the simulator's walk over the sources found.
type walkView struct {
	Held    int64
	Demand  []string // key, want, the VPod's vreplicas and whether it is the lister's
	Holders []string
}

func viewOf(m *simulator, held int64, listed []vsched.VPod) walkView {
	out := walkView{Held: held}
	for _, d := range m.demand {
		fromLister := false
		for _, v := range listed {
			fromLister = fromLister || v == d.vpod
		}
		out.Demand = append(out.Demand, fmt.Sprint(d.key.Name, d.want, d.vpod.GetVReplicas(), fromLister, len(d.placements)))
	}
	for _, h := range m.holders {
		out.Holders = append(out.Holders, fmt.Sprint(h.key.Name, h.maxOrd, h.want))
	}
	sort.Strings(out.Holders)
	return out
}

// byMap is the walk as it was: every source of the state, looked up in the
// lister's sources indexed by key, then the listed ones the state does not
// know.
func byMap(c *cycle, low int32) walkView {
	listed := listedByKey(c.vpods)
	out := walkView{}
	var demand []string
	c.base.EachSource(func(key types.NamespacedName, vreplicas int32, ps []vsched.Placement, hs []state.Held) {
		want := vreplicas
		v, ok := listed[key]
		if ok {
			want = v.GetVReplicas()
		}
		var kept int32
		maxOrd := int32(-1)
		for _, h := range hs {
			maxOrd = max(maxOrd, h.Ordinal)
			if h.Ordinal < c.current && !c.base.Draining(h.Ordinal) {
				kept += h.VReplicas
			}
		}
		out.Held += int64(min(max(want, 0), kept))
		if want > kept && want <= vsched.MaxVReplicas {
			vp := descheduler.ListedOr(listed, key, vreplicas, ps)
			demand = append(demand, fmt.Sprint(key.Name, want, vp.GetVReplicas(), ok, len(ps)))
		}
		if maxOrd >= min(low, c.limit) {
			out.Holders = append(out.Holders, fmt.Sprint(key.Name, maxOrd, want))
		}
	})
	for key, v := range listed {
		if !c.base.Knows(key) && v.GetVReplicas() > 0 && v.GetVReplicas() <= vsched.MaxVReplicas {
			demand = append(demand, fmt.Sprint(key.Name, v.GetVReplicas(), v.GetVReplicas(), true, 0))
		}
	}
	sort.Strings(demand)
	out.Demand = demand
	sort.Strings(out.Holders)
	return out
}

// The simulator's walk over the lister's sources finds what a walk over the
// state's sources with the lister's indexed by key finds: on random states
// and lists with sources missing from either, listed twice (the last copy
// counts), growing, shrinking, above MaxVReplicas, or held on draining pods
// or above the size.
func TestSimulatorWalkMatchesListedByKey(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 200; round++ {
		st, err := state.New(state.Options{StatefulSetName: "adapter", Capacity: 10})
		if err != nil {
			t.Fatal(err)
		}
		st.UpsertNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: v1.NodeStatus{Conditions: []v1.NodeCondition{
			{Type: v1.NodeReady, Status: v1.ConditionTrue}}}}, time.Time{})
		for ord := int32(0); ord < 6; ord++ {
			st.UpsertPod(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: vsched.PodName("adapter", ord)}, Spec: v1.PodSpec{NodeName: "n"}})
		}
		st.SetReplicas(int32(3 + rng.Intn(4)))
		if rng.Intn(3) == 0 {
			st.SetDraining(int32(rng.Intn(6)), true)
		}
		var vpods []vsched.VPod
		for i := 0; i < 12; i++ {
			k := types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("s", rng.Intn(10))}
			ps := []vsched.Placement{{PodName: vsched.PodName("adapter", int32(rng.Intn(6))), VReplicas: 1 + int32(rng.Intn(3))}}
			if rng.Intn(4) > 0 {
				st.Observe(&vsched.PlainVPod{Key: k, VReplicas: 2, Placements: ps, ResourceVersion: fmt.Sprint(i + 1)}, time.Time{})
			}
			if rng.Intn(5) == 0 {
				st.Forget(k, time.Time{})
			}
			if rng.Intn(4) > 0 {
				n := []int32{0, 1, 2, 4, vsched.MaxVReplicas + 1}[rng.Intn(5)]
				vpods = append(vpods, &vsched.PlainVPod{Key: k, VReplicas: n, Placements: ps})
			}
		}
		if rng.Intn(4) == 0 {
			vpods = append(vpods, nil)
		}
		c := &cycle{ctx: quiet(), base: st, vpods: vpods, current: st.Replicas(), limit: int32(2 + rng.Intn(6)), dec: &Report{}}
		low := int32(rng.Intn(7))
		m, held := (&Autoscaler{}).simulator(c, low, 0)
		if d := cmp.Diff(byMap(c, low), viewOf(m, held, vpods)); d != "" {
			t.Fatalf("round %d (-by map +walk):\n%s", round, d)
		}
	}
}
