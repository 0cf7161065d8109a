package framework_test

import (
	"context"
	"fmt"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// FullestPod is a removal priority: take from the pod holding the most of
// the source. It reads only the pod's count, so two holders with the same
// count on one node are alike to it, and it declares
// framework.HolderEquivalenceAware.
type FullestPod struct{}

func (FullestPod) Name() string { return "FullestPod" }

// Score is the pod's share of the source's largest count on one pod.
func (FullestPod) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	most := d.HolderPodStats().Max
	if most <= 0 {
		return framework.MinScore, nil
	}
	return framework.MaxScore * int64(d.OnPod(ordinal)) / int64(most), nil
}

// EquivalentHolders implements framework.HolderEquivalenceAware.
func (FullestPod) EquivalentHolders() bool { return true }

// ExampleHolderEquivalenceAware builds a descheduler profile whose only
// plugin declares HolderEquivalenceAware, so that for a source holding 32
// pods or more the runtime evaluates one holder per class (the same count
// on the same node) instead of every holder, and removes 3 vreplicas: from
// the fullest pods, the highest ordinal first among equals. The answer is
// the same with or without the classes.
func ExampleHolderEquivalenceAware() {
	p, err := framework.NewProfile(framework.Remove, nil, []framework.WeightedScore{{Plugin: FullestPod{}, Weight: 1}})
	if err != nil {
		panic(err)
	}
	c := ft.NewCluster(10).Node("n0", "zone-a").Pods("n0", "n0", "n0", "n0")
	base := []vsched.Placement{ft.P(0, 3), ft.P(1, 3), ft.P(2, 1), ft.P(3, 1)}
	c.UsePlacements(base)
	d, err := framework.NewDecision(framework.Remove, c, nil, base)
	if err != nil {
		panic(err)
	}
	res, err := p.Run(context.Background(), d, 3, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("by class:", p.HolderGrouped(), "removed:", res.Changed)
	for _, pl := range d.Placements() {
		fmt.Println(pl.PodName, pl.VReplicas)
	}
	// Output:
	// by class: true removed: 3
	// adapter-0 2
	// adapter-1 1
	// adapter-2 1
	// adapter-3 1
}
