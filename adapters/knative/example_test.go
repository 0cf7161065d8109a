package knative_test

import (
	"context"
	"fmt"
	"time"

	"knative.dev/eventing/pkg/scheduler"
	"knative.dev/pkg/controller"

	"github.com/vsched/vsched"
	knative "github.com/vsched/vsched/adapters/knative"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/statefulset"
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

// ExampleNewStatefulSet builds the scheduler eventing-kafka-broker's
// consumergroup controller took from Knative's statefulset.New, here on the
// in-memory cluster: a pod an operator marked
// eventing.knative.dev/unschedulable receives nothing.
func ExampleNewStatefulSet() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a"}, Replicas: 3, Capacity: 4})
	if err != nil {
		panic(err)
	}
	defer c.Shutdown()
	src := &source{key: key("cg"), vreplicas: 6, rv: "1"}
	s, err := knative.NewStatefulSet(ctx, knative.StatefulSetConfig{
		StatefulSetNamespace: c.Namespace(), StatefulSetName: c.StatefulSetName(), PodCapacity: 4,
		MinReplicas: 1, RefreshPeriod: 30 * time.Second,
		VPodLister:   func() ([]scheduler.VPod, error) { return []scheduler.VPod{src}, nil },
		ListerSynced: func() bool { return true }, Informers: statefulset.InformersFromFactory(c.InformerFactory()),
		Client: c.Client(), AlwaysLeader: true,
	})
	if err != nil {
		panic(err)
	}
	if err := c.Start(ctx); err != nil {
		panic(err)
	}
	if err := c.AnnotatePod(0, scheduler.PodAnnotationKey, "true"); err != nil {
		panic(err)
	}
	_ = c.WaitFor(ctx, func() bool { return s.StatefulSet.Pods()[0].Draining })
	placements, err := s.Schedule(ctx, src)
	fmt.Printf("%+v %v\n", placements, err)
	// Output:
	// [{PodName:adapter-1 VReplicas:4} {PodName:adapter-2 VReplicas:2}] <nil>
}
