package descheduler_test

import (
	"context"
	"fmt"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
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
