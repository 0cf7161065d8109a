package framework_test

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// TestHeavyRoomDecisionAgainstState places and removes a light source's
// vreplicas at random with a decision on a state (capacity 10, 2Gi a
// pod) whose StatefulSet was scaled down from 4 pods to 3 while the
// source still holds vreplicas on the gone pod, and checks after each
// change that the heavy room the decision keeps (and HeavyRoomShort) is
// what the state reads once the source holds the decision's placements.
func TestHeavyRoomDecisionAgainstState(t *testing.T) {
	const sts, mi = "adapter", int64(1 << 20 * 1000)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	mem := func(q string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(q)}
	}
	light := types.NamespacedName{Namespace: "ns", Name: "light"}
	for seed := range int64(30) {
		rng := rand.New(rand.NewSource(seed))
		s, err := state.New(state.Options{StatefulSetName: sts, Capacity: 10, PodResources: mem("2Gi")})
		if err != nil {
			t.Fatal(err)
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n0", Labels: map[string]string{state.DefaultZoneLabel: "za"}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		s.UpsertNode(node, t0)
		for ord := range int32(4) {
			s.UpsertPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: vsched.PodName(sts, ord), Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "n0"}})
		}
		s.SetReplicas(4)
		var ps []vsched.Placement
		for ord := range int32(4) {
			ps = append(ps, vsched.Placement{PodName: vsched.PodName(sts, ord), VReplicas: int32(1 + rng.Intn(5))})
		}
		lv := &vsched.PlainVPod{Key: light, VReplicas: 30, Placements: ps, ResourceVersion: "1", Cost: mem("100Mi")}
		s.Observe(lv, t0)
		s.Observe(&vsched.PlainVPod{Key: types.NamespacedName{Namespace: "ns", Name: "heavy"}, VReplicas: int32(5 + rng.Intn(20)),
			ResourceVersion: "1", Cost: mem("300Mi")}, t0)
		s.DeletePod(vsched.PodName(sts, 3))
		s.SetReplicas(3)
		d, err := framework.NewDecision(framework.Place, s, lv, ps)
		if err != nil {
			t.Fatal(err)
		}
		for step := range 40 {
			ord, delta := int32(rng.Intn(4)), int32(1)
			if rng.Intn(2) == 0 || ord == 3 {
				if d.OnPod(ord) == 0 {
					continue
				}
				delta = -1
			} else if d.Free(ord) < 1 || d.ResourceFree(ord, 0) < 100*mi {
				continue
			}
			d.ApplyForTest(ord, delta)
			c := s.Clone()
			lv2 := *lv
			lv2.Placements, lv2.ResourceVersion = d.Placements(), fmt.Sprint(step+2)
			c.Observe(&lv2, t0)
			want := c.HeavyRoom(0, 100*mi)
			wantShort := int64(0)
			if want.Need > 0 && want.Slack() < want.Fit.Dearest-want.Fit.Cheapest {
				wantShort = 1
			}
			if got, counted := d.KeptHeavyRoomForTest(0); counted {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("seed %d, step %d (%+d on pod %d): kept heavy room (-state +decision):\n%s", seed, step, delta, ord, diff)
				}
			}
			if got := d.HeavyRoomShort(); got != wantShort {
				t.Fatalf("seed %d, step %d (%+d on pod %d): HeavyRoomShort() = %b, the state's reading %b (%+v)", seed, step, delta, ord, got, wantShort, want)
			}
		}
	}
}
