package state_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// PodPlace answers where a pod is, as Pod would, without building a
// PodInfo: a decision asks it for the pods its spread plugins score.
func ExampleState_PodPlace() {
	s, err := state.New(state.Options{StatefulSetName: "adapter", Capacity: 10})
	if err != nil {
		panic(err)
	}
	s.UpsertNode(&corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{state.DefaultZoneLabel: "zone-a"}},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}, time.Now())
	s.UpsertPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "adapter-0", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "node-a"}})
	s.SetReplicas(2)
	for ord := int32(0); ord < 2; ord++ {
		node, zone, candidate, known := s.PodPlace(ord)
		fmt.Printf("pod %d: node %d, zone %d, candidate %v, known %v\n", ord, node, zone, candidate, known)
	}
	// Output:
	// pod 0: node 0, zone 0, candidate true, known true
	// pod 1: node -1, zone -1, candidate false, known false
}

// CheapestCost is the lowest cost per vreplica any source declares in a
// resource, 0 once a source declares none: its vreplicas fill any slot.
func ExampleState_CheapestCost() {
	s, err := state.New(state.Options{StatefulSetName: "adapter", Capacity: 10,
		PodResources: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}})
	if err != nil {
		panic(err)
	}
	now := time.Now()
	for _, v := range []*vsched.PlainVPod{
		{Key: types.NamespacedName{Namespace: "ns", Name: "heavy"}, VReplicas: 1, ResourceVersion: "1",
			Cost: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("400Mi")}},
		{Key: types.NamespacedName{Namespace: "ns", Name: "light"}, VReplicas: 1, ResourceVersion: "1",
			Cost: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100Mi")}},
		{Key: types.NamespacedName{Namespace: "ns", Name: "plain"}, VReplicas: 1, ResourceVersion: "1"},
	} {
		s.Observe(v, now)
		fmt.Printf("after %s: %s\n", v.Key.Name, resource.NewMilliQuantity(s.CheapestCost(0), resource.BinarySI))
	}
	// Output:
	// after heavy: 400Mi
	// after light: 100Mi
	// after plain: 0
}
