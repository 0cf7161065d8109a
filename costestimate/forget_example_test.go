package costestimate_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/costestimate"
)

// A deleted source's estimate goes with it, and a source created again
// with the same name is estimated from its own rounds: b cost 500Mi, its
// namesake 100Mi.
func ExampleMeasured_Forget() {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	m := costestimate.NewMeasured(costestimate.MeasuredOptions{Options: costestimate.Options{Smoothing: 0.3}, Now: func() time.Time { return now }})
	a := types.NamespacedName{Namespace: "ns", Name: "a"}
	b := types.NamespacedName{Namespace: "ns", Name: "b"}
	mib := func(n int64) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(n<<20, resource.BinarySI)}
	}
	round := func(bCost int64) {
		m.Observe([]costestimate.Pod{
			{Usage: mib(400 + bCost), Sources: []costestimate.Share{{Source: a, VReplicas: 2}, {Source: b, VReplicas: 1}}},
			{Usage: mib(200), Sources: []costestimate.Share{{Source: a, VReplicas: 1}}},
		}, now)
	}
	for range 10 {
		round(500)
	}
	memory := func(k types.NamespacedName) string {
		q := m.EstimatedCost(k)[corev1.ResourceMemory]
		return q.String()
	}
	fmt.Println("b:", memory(b))
	m.Forget(b)
	fmt.Println("b deleted:", m.EstimatedCost(b) == nil)
	round(100)
	fmt.Println("b again:", memory(b), "a:", memory(a))
	// Output:
	// b: 500Mi
	// b deleted: true
	// b again: 100Mi a: 200Mi
}
