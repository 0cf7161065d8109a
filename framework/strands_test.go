package framework_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// TestStrands checks Decision.Strands on one node of pods with 20 slots
// and 4Gi (4096Mi): pod 0 holds 12 slots and 3000Mi of other sources,
// pod 1 12 slots and 2000Mi, pod 2 19 slots and 500Mi, pod 3 nothing.
func TestStrands(t *testing.T) {
	cases := []struct {
		name, cost, cheapest string
		want                 map[int32]bool
	}{{
		// Pod 0 after: 7 slots, 96Mi, no 100Mi vreplica fits: 7
		// stranded, before none (8 slots, 1096Mi). Pod 1 after: 7 slots,
		// 1096Mi for 10. Pod 2 after: no free slot. Pod 3: 19 slots,
		// 3096Mi for 30.
		name: "heavy among light", cost: "1000Mi", cheapest: "100Mi",
		want: map[int32]bool{0: true, 1: false, 2: false, 3: false},
	}, {
		// The cheapest source's vreplica never strands: on pod 0, 996Mi
		// for 7 slots leaves 9.
		name: "the cheapest itself", cost: "100Mi", cheapest: "100Mi",
		want: map[int32]bool{0: false, 1: false, 2: false, 3: false},
	}, {
		// Every source is heavy: 4 fit a pod, and 16 slots of an empty
		// pod stay free whatever. Pod 0 strands no more than it has (8
		// slots, 1096Mi: 7 stranded before, 7 after); pod 1, 2096Mi for
		// 8 slots: 6 before, 6 after; pod 3: 16 and 16.
		name: "heavy only", cost: "1000Mi", cheapest: "1000Mi",
		want: map[int32]bool{0: false, 1: false, 2: false, 3: false},
	}, {
		// A source that costs nothing in memory fills any slot.
		name: "a source without a cost", cost: "1000Mi", cheapest: "0",
		want: map[int32]bool{0: false, 1: false, 2: false, 3: false},
	}, {
		name: "no cost", cheapest: "100Mi",
		want: map[int32]bool{0: false, 1: false, 2: false, 3: false},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ft.WithResources(ft.NewCluster(20).Node("n0", "za").Pods("n0", "n0", "n0", "n0").Use(0, 12).Use(1, 12).Use(2, 19),
				ft.Resources("memory", "4Gi")).
				UseResources(0, ft.Resources("memory", "3000Mi")).
				UseResources(1, ft.Resources("memory", "2000Mi")).
				UseResources(2, ft.Resources("memory", "500Mi")).
				Cheapest(ft.Resources("memory", tc.cheapest))
			src := ft.NewVPod("ns", "s", 1)
			if tc.cost != "" {
				c.Cost(src.Key, ft.Resources("memory", tc.cost))
			}
			d, err := framework.NewDecision(framework.Place, c, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int32]bool{}
			for ord := int32(0); ord < 4; ord++ {
				got[ord] = d.Strands(ord)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Strands (-want +got):\n%s", diff)
			}
		})
	}
}
