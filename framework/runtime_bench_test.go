package framework_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// benchCluster is 600 pods of capacity 10 over 12 nodes in 3 zones, half
// used by other sources, with the source already on 6 pods.
func benchCluster() (*ft.Cluster, []vsched.Placement) {
	rng := rand.New(rand.NewSource(1))
	c := ft.NewCluster(10)
	var nodes []string
	for i := range 12 {
		nodes = append(nodes, fmt.Sprintf("node-%d", i))
		c.Node(nodes[i], fmt.Sprintf("zone-%d", i%3))
	}
	for i := range 600 {
		c.Pods(nodes[i%len(nodes)])
	}
	var base []vsched.Placement
	for ord := range int32(600) {
		used := rng.Int31n(11)
		c.Use(ord, used)
		if ord%100 == 7 && used > 0 {
			base = append(base, ft.P(ord, 1))
		}
	}
	c.Candidates() // settle the fixture's lazy state outside the timer
	return c, base
}

func benchProfile(b *testing.B, extra ...framework.WeightedScore) *framework.Profile {
	scores := append([]framework.WeightedScore{
		{Plugin: ft.ZoneSpreadScorer{}, Weight: 3},
		{Plugin: ft.NodeSpreadScorer{}, Weight: 2},
		{Plugin: ft.PodSpreadScorer{}, Weight: 2},
		{Plugin: ft.LowestOrdinalScorer{}, Weight: 1},
	}, extra...)
	p, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}}, scores)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRun places 10 vreplicas: grouped (one pod per class), grouped on
// a cluster with a free-candidate index, pod by pod without an explanation
// (a profile that cannot group), and explained. Each iteration includes
// NewDecision.
func BenchmarkRun(b *testing.B) {
	c, base := benchCluster()
	grouped := benchProfile(b)
	podByPod := benchProfile(b, framework.WeightedScore{Plugin: &ft.ScriptedScorer{}, Weight: 0})
	if !grouped.Grouped() || podByPod.Grouped() {
		b.Fatal("profiles not as intended")
	}
	ctx := context.Background()
	for _, bc := range []struct {
		name    string
		p       *framework.Profile
		c       framework.Cluster
		explain bool
	}{
		{"grouped", grouped, c, false},
		{"groupedIndexed", grouped, c.Indexed(), false},
		{"podByPod", podByPod, c, false},
		{"explained", grouped, c, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := framework.NewDecision(framework.Place, bc.c, nil, base)
				if err != nil {
					b.Fatal(err)
				}
				var ex *framework.Explanation
				if bc.explain {
					ex = &framework.Explanation{}
				}
				res, err := bc.p.Run(ctx, d, 10, ex)
				if err != nil || res.Changed != 10 {
					b.Fatalf("Run = %+v, %v", res, err)
				}
			}
		})
	}
}
