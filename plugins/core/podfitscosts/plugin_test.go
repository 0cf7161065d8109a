package podfitscosts

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// cluster is one node with two pods of 10 slots and 1Gi, pod 0 holding
// 768Mi of other sources.
func cluster() *frameworktest.CostCluster {
	c := frameworktest.WithResources(frameworktest.NewCluster(10).Node("n0", "za").Pods("n0", "n0"),
		frameworktest.Resources("memory", "1Gi", "cpu", "2"))
	return c.UseResources(0, frameworktest.Resources("memory", "768Mi", "cpu", "1"))
}

func TestFilter(t *testing.T) {
	cases := []struct {
		name   string
		cost   string
		placed []int32 // placed by the decision before the filter runs
		want   map[int32]string
	}{
		{name: "no cost passes everywhere", want: map[int32]string{0: "", 1: ""}},
		{name: "fits both", cost: "256Mi", want: map[int32]string{0: "", 1: ""}},
		{
			name: "pod 0 short of memory", cost: "257Mi",
			want: map[int32]string{0: "pod adapter-0 has 256Mi of memory left, a vreplica costs 257Mi (slots 0/10, cpu 1/2, memory 768Mi/1Gi)", 1: ""},
		},
		{
			// Four placed on pod 1 leave 0 there.
			name: "the decision's own placements count", cost: "256Mi", placed: []int32{1, 1, 1, 1},
			want: map[int32]string{0: "", 1: "pod adapter-1 has 0 of memory left, a vreplica costs 256Mi (slots 4/10, cpu 0/2, memory 1Gi/1Gi)"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster()
			src := frameworktest.NewVPod("ns", "s", 10)
			if tc.cost != "" {
				c.Cost(src.Key, frameworktest.Resources("memory", tc.cost))
			}
			d, err := framework.NewDecision(framework.Place, c, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.placed) > 0 {
				p, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{frameworktest.OnlyPod(tc.placed[0])}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Run(context.Background(), d, int32(len(tc.placed)), nil); err != nil {
					t.Fatal(err)
				}
			}
			got := map[int32]string{}
			for ord := int32(0); ord < 2; ord++ {
				got[ord] = New().Filter(context.Background(), d, ord).Message()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
