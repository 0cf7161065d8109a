package descheduler_test

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/state"
)

// A source on three pods shrinks by one. The default descheduler profile
// takes from the fullest zone first: zone-a holds two of the vreplicas, on
// pods 0 and 2 of one node, and of those the highest ordinal goes.
func ExampleShrink() {
	ctx := context.Background()
	ps, err := config.BuildProfiles(ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		panic(err)
	}
	kept := []vsched.Placement{frameworktest.P(0, 1), frameworktest.P(1, 1), frameworktest.P(2, 1)}
	c := frameworktest.NewCluster(10).Node("a1", "zone-a").Node("b1", "zone-b").
		Pods("a1", "b1", "a1").UsePlacements(kept)
	vpod := frameworktest.NewVPod("ns", "source", 2, kept...)
	left, _, err := descheduler.Shrink(ctx, ps.Remove, c, vpod, kept, 1, nil)
	if err != nil {
		panic(err)
	}
	for _, p := range left {
		fmt.Println(p.PodName, p.ZoneName, p.VReplicas)
	}
	// Output:
	// adapter-0 zone-a 1
	// adapter-1 zone-b 1
}

// Pod 2's node is lost (drained as unavailable) and pod 1 is drained for
// compaction, with at most 2 moves per cycle and 1 per source. Everything
// on pod 2 is evacuated at once, outside those limits; compaction gets its
// limited share, without b, which moves already.
func ExamplePlanDrains() {
	st, err := state.New(state.Options{StatefulSetName: "adapter", Capacity: 10})
	if err != nil {
		panic(err)
	}
	st.SetReplicas(3)
	now := time.Now()
	for _, s := range []*vsched.PlainVPod{
		{Key: types.NamespacedName{Namespace: "ns", Name: "a"}, VReplicas: 4, Placements: []vsched.Placement{frameworktest.P(2, 4)}},
		{Key: types.NamespacedName{Namespace: "ns", Name: "b"}, VReplicas: 8, Placements: []vsched.Placement{frameworktest.P(1, 5), frameworktest.P(2, 3)}},
		{Key: types.NamespacedName{Namespace: "ns", Name: "c"}, VReplicas: 6, Placements: []vsched.Placement{frameworktest.P(1, 6)}},
	} {
		st.Observe(s, now)
	}
	marks := map[int32]string{2: evictor.ReasonUnavailable, 1: evictor.ReasonCompaction}
	plan := descheduler.PlanDrains(st, marks, nil, 2, 1)
	fmt.Println("evacuate:", plan.Evacuate)
	fmt.Println("limited:", plan.Limited)
	// Output:
	// evacuate: [{ns/a 4} {ns/b 3}]
	// limited: [{ns/c 1}]
}
