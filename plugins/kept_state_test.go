package plugins

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// TestKeptStepOnState places a light source of 20 to 60 vreplicas on
// random states (3 zones, pods of 10 slots and 2Gi, some gone after a
// scale-down or on cordoned nodes, heavier sources placed and waiting,
// so that the heavy room rule engages) with every in-tree policy's
// costed profile, and checks that keeping filter verdicts and scores
// from step to step places exactly as evaluating every candidate (an
// explanation) does.
func TestKeptStepOnState(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	mem := func(q string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(q)}
	}
	const sts = "adapter"
	for _, name := range []string{"default", "kafkaHA", "zoneHard", "example"} {
		p := placeProfile(t, name)
		if p.Costed() != nil {
			p = p.Costed()
		}
		rng := rand.New(rand.NewSource(21))
		for i := range 60 {
			s, err := state.New(state.Options{StatefulSetName: sts, Capacity: 10, PodResources: mem("2Gi")})
			if err != nil {
				t.Fatal(err)
			}
			pods := int32(6 + rng.Intn(10))
			for n := range 5 {
				node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("n", n), Labels: map[string]string{state.DefaultZoneLabel: fmt.Sprint("z", n%3)}},
					Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
					Spec:   corev1.NodeSpec{Unschedulable: rng.Intn(8) == 0}}
				s.UpsertNode(node, t0)
			}
			for ord := range pods {
				s.UpsertPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: vsched.PodName(sts, ord), Namespace: "ns"},
					Spec: corev1.PodSpec{NodeName: fmt.Sprint("n", rng.Intn(5))}})
			}
			s.SetReplicas(pods)
			for j := range 1 + rng.Intn(4) {
				var pl []vsched.Placement
				for ord := range pods {
					if rng.Intn(3) == 0 {
						pl = append(pl, vsched.Placement{PodName: vsched.PodName(sts, ord), VReplicas: int32(1 + rng.Intn(3))})
					}
				}
				s.Observe(&vsched.PlainVPod{Key: types.NamespacedName{Namespace: "ns", Name: fmt.Sprint("heavy", j)}, VReplicas: int32(5 + rng.Intn(30)),
					Placements: pl, ResourceVersion: "1", Cost: mem([]string{"300Mi", "500Mi", "1000Mi"}[rng.Intn(3)])}, t0)
			}
			var base []vsched.Placement
			for ord := range pods {
				if rng.Intn(4) == 0 {
					base = append(base, vsched.Placement{PodName: vsched.PodName(sts, ord), VReplicas: int32(1 + rng.Intn(2))})
				}
			}
			n := int32(20 + rng.Intn(40))
			light := &vsched.PlainVPod{Key: types.NamespacedName{Namespace: "ns", Name: "light"}, VReplicas: n, Placements: base,
				ResourceVersion: "1", Cost: mem("100Mi")}
			s.Observe(light, t0)
			if rng.Intn(2) == 0 {
				gone := pods - 1 - int32(rng.Intn(3))
				for ord := gone; ord < pods; ord++ {
					s.DeletePod(vsched.PodName(sts, ord))
				}
				s.SetReplicas(gone)
			}
			n1, n2, diff := keptAndExplained(t, p, s, light, base, n)
			if diff != "" || n1 != n2 {
				t.Fatalf("%s, state %d (base %v, %d): kept %d, every candidate %d; placements (-every candidate +kept):\n%s", name, i, base, n, n1, n2, diff)
			}
		}
	}
}
