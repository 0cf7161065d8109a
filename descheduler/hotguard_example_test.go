package descheduler_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
)

// A hot pod's shed of one 300Mi vreplica, with a hot-pod limit of 900Mi:
// the scheduler profile alone puts it on pod 0, measured at 950Mi; with
// the guard added (Profile.WithFilter) pod 0 is refused, and so is pod 1
// (700Mi + 300Mi), and it goes to pod 2, at 400Mi.
func ExampleHotGuard() {
	const mi = int64(1<<20) * 1000 // milli-units
	ctx := context.Background()
	ps, err := config.BuildProfiles(ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		panic(err)
	}
	c := frameworktest.NewCluster(10).Node("n0", "za").Pods("n0", "n0", "n0")
	src := types.NamespacedName{Namespace: "ns", Name: "heavy"}
	guard := &descheduler.HotGuard{
		Limits: []descheduler.HotLimit{{Resource: corev1.ResourceMemory, Milli: 900 * mi}},
		Pods: map[int32]descheduler.MeasuredPod{
			0: {Used: []int64{950 * mi}}, 1: {Used: []int64{700 * mi}}, 2: {Used: []int64{400 * mi}},
		},
		Costs: map[types.NamespacedName][]int64{src: {300 * mi}},
	}
	guarded, err := ps.Place.WithFilter(guard)
	if err != nil {
		panic(err)
	}
	for _, p := range []*framework.Profile{ps.Place, guarded} {
		d, err := framework.NewDecision(framework.Place, c, frameworktest.NewVPod(src.Namespace, src.Name, 1), nil)
		if err != nil {
			panic(err)
		}
		if _, err := p.Run(ctx, d, 1, nil); err != nil {
			panic(err)
		}
		fmt.Println(p.FilterNames(), "->", d.Placements()[0].PodName)
	}
	// Output:
	// [PodFitsResources] -> adapter-0
	// [PodFitsResources HotPodGuard] -> adapter-2
}
