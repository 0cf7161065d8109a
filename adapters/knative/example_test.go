package knative_test

import (
	"context"
	"fmt"

	"knative.dev/eventing/pkg/scheduler"
	"knative.dev/pkg/controller"

	"github.com/vsched/vsched"
	knative "github.com/vsched/vsched/adapters/knative"
)

// full stands in for a *statefulset.Scheduler whose pods are nearly full:
// it places two vreplicas on pod 0 and reports the rest pending.
type full struct{}

func (full) Schedule(_ context.Context, v vsched.VPod) ([]vsched.Placement, error) {
	placed := []vsched.Placement{{PodName: "adapter-0", ZoneName: "a", VReplicas: 2}}
	return placed, &vsched.PendingError{Key: v.GetKey(), Pending: v.GetVReplicas() - 2}
}

// ExampleNew puts a vsched scheduler behind Knative's scheduler.Scheduler:
// a reconciler written for Knative gets Knative's placements and an error
// its controller requeues.
func ExampleNew() {
	var s scheduler.Scheduler = knative.New(full{})
	src := &source{key: key("kafka-source"), vreplicas: 5, rv: "1"}

	placements, err := s.Schedule(context.Background(), src)
	fmt.Printf("%+v\n", placements)
	fmt.Println(err)
	requeue, after := controller.IsRequeueKey(err)
	fmt.Println("requeue:", requeue, after, "pending:", vsched.PendingCount(err))
	// Output:
	// [{PodName:adapter-0 VReplicas:2}]
	// ns/kafka-source: 3 vreplica(s) pending: not enough pod replicas to place every vreplica (retry: requeue after: 5s)
	// requeue: true 5s pending: 3
}
