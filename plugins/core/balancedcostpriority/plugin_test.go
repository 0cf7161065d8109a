package balancedcostpriority

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

func TestScore(t *testing.T) {
	// Three pods of 10 slots, 1Gi and 1 CPU. Pod 0 holds 2 slots and
	// nothing else; pod 1 3 slots and 600Mi; pod 2 8 slots, 1000Mi and
	// 500m.
	newCluster := func() *frameworktest.CostCluster {
		c := frameworktest.NewCluster(10).Node("n0", "za").Pods("n0", "n0", "n0").Use(0, 2).Use(1, 3).Use(2, 8)
		return frameworktest.WithResources(c, frameworktest.Resources("memory", "1Gi", "cpu", "1")).
			UseResources(1, frameworktest.Resources("memory", "600Mi")).
			UseResources(2, frameworktest.Resources("memory", "1000Mi", "cpu", "500m"))
	}
	cases := []struct {
		name string
		cost []string
		want map[int32]int64
	}{
		{name: "no cost", want: map[int32]int64{0: 100, 1: 100, 2: 100}},
		{
			// After one more: pod 0 slots 300, memory 97: 100-203/10 = 80;
			// pod 1 slots 400, memory 683: 100-283/10 = 72; pod 2 slots 900,
			// memory 1000 (capped): 100-100/10 = 90.
			name: "memory", cost: []string{"memory", "100Mi"},
			want: map[int32]int64{0: 80, 1: 72, 2: 90},
		},
		{
			// Only the dimensions the source costs in count: pod 0 slots
			// 300, cpu 500: 80; pod 1 400, 500: 90; pod 2 900, 1000: 90.
			name: "cpu", cost: []string{"cpu", "500m"},
			want: map[int32]int64{0: 80, 1: 90, 2: 90},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster()
			src := frameworktest.NewVPod("ns", "s", 1)
			if tc.cost != nil {
				c.Cost(src.Key, frameworktest.Resources(tc.cost...))
			}
			d, err := framework.NewDecision(framework.Place, c, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int32]int64{}
			for ord := int32(0); ord < 3; ord++ {
				sc, st := New().Score(context.Background(), d, ord)
				if !st.IsSuccess() {
					t.Fatal(st)
				}
				got[ord] = sc
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPermille(t *testing.T) {
	cases := []struct{ used, limit, want int64 }{
		{0, 10, 0}, {-5, 10, 0}, {3, 10, 300}, {10, 10, 1000}, {11, 10, 1000}, {1, 0, 1000},
		{1, 3, 333}, {math.MaxInt64 - 1, math.MaxInt64, 999},
		// Either side of the largest used that 1000 times fits in 64 bits.
		{math.MaxInt64 / 1000, math.MaxInt64/1000*3 + 1, 333},
		{math.MaxInt64/1000 + 1, (math.MaxInt64/1000+1)*3 + 1, 333},
	}
	for _, tc := range cases {
		if got := permille(tc.used, tc.limit); got != tc.want {
			t.Errorf("permille(%d, %d) = %d, want %d", tc.used, tc.limit, got, tc.want)
		}
	}
}
