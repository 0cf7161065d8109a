package costestimate_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/costestimate"
)

// Measured feeds the scheduler's sources that opt into a measured cost:
// a declared resource wins over the estimate, and the estimates expire
// when no usage was measured for MaxAge.
func ExampleMeasured() {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	m := costestimate.NewMeasured(costestimate.MeasuredOptions{
		Options: costestimate.Options{Smoothing: 1}, MaxAge: 10 * time.Minute, Now: func() time.Time { return now },
	})
	a := types.NamespacedName{Namespace: "ns", Name: "a"}
	b := types.NamespacedName{Namespace: "ns", Name: "b"}
	mib := func(n int64) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(n<<20, resource.BinarySI)}
	}
	// a 200Mi and b 500Mi per vreplica, seen on two pods, a round a
	// cycle: each round solves from the last estimates.
	for range 10 {
		m.Observe([]costestimate.Pod{
			{Usage: mib(900), Sources: []costestimate.Share{{Source: a, VReplicas: 2}, {Source: b, VReplicas: 1}}},
			{Usage: mib(700), Sources: []costestimate.Share{{Source: a, VReplicas: 1}, {Source: b, VReplicas: 1}}},
		}, now)
	}
	src := &vsched.PlainVPod{Key: a, VReplicas: 3, MeasureCost: true, Cost: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}
	cost := vsched.EffectiveVReplicaCost(src, m)
	fmt.Printf("memory %dMi cpu %v\n", (cost.Memory().Value()+1<<19)>>20, cost.Cpu())
	now = now.Add(11 * time.Minute)
	cost = vsched.EffectiveVReplicaCost(src, m)
	fmt.Println("expired:", m.Expired(now), "memory", cost.Memory(), "cpu", cost.Cpu())
	// Output:
	// memory 200Mi cpu 250m
	// expired: true memory 0 cpu 250m
}
