package descheduler

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

const mib = int64(1<<20) * 1000 // one Mi in milli-units

// guardCluster is one node with four pods of 10 slots and 1Gi; the guard's
// limit is 900Mi of memory, pod 0 measured at 950Mi, pod 1 at 700Mi, pod 2
// at 550Mi, pod 3 not measured.
func guardCluster() (*frameworktest.CostCluster, *HotGuard) {
	c := frameworktest.WithResources(frameworktest.NewCluster(10).Node("n0", "za").Pods("n0", "n0", "n0", "n0"),
		frameworktest.Resources("memory", "1Gi"))
	g := &HotGuard{
		Limits: []HotLimit{{Resource: corev1.ResourceMemory, Milli: 900 * mib}},
		Pods: map[int32]MeasuredPod{
			0: {Used: []int64{950 * mib}}, 1: {Used: []int64{700 * mib}}, 2: {Used: []int64{550 * mib}},
		},
	}
	return c, g
}

func TestHotGuardFilter(t *testing.T) {
	src := types.NamespacedName{Namespace: "ns", Name: "s"}
	cases := []struct {
		name     string
		weight   []int64 // the guard's Costs for the source
		declared string  // the cluster's cost for the source
		placed   []int32 // placed by the decision before the filter runs
		want     map[int32]string
	}{
		{
			name: "no cost: only the pod over the limit",
			want: map[int32]string{0: "pod adapter-0 measured 950Mi of memory; with 1 vreplica(s) more at 0 it passes the hot-pod limit of 900Mi", 1: "", 2: "", 3: ""},
		},
		{
			name: "the shed's weight: pods it would take over", weight: []int64{250 * mib},
			want: map[int32]string{
				0: "pod adapter-0 measured 950Mi of memory; with 1 vreplica(s) more at 250Mi it passes the hot-pod limit of 900Mi",
				1: "pod adapter-1 measured 700Mi of memory; with 1 vreplica(s) more at 250Mi it passes the hot-pod limit of 900Mi",
				2: "", 3: "",
			},
		},
		{
			name: "the declared cost when the shed has no weight", declared: "350Mi",
			want: map[int32]string{
				0: "pod adapter-0 measured 950Mi of memory; with 1 vreplica(s) more at 350Mi it passes the hot-pod limit of 900Mi",
				1: "pod adapter-1 measured 700Mi of memory; with 1 vreplica(s) more at 350Mi it passes the hot-pod limit of 900Mi",
				2: "", 3: "",
			},
		},
		{
			// 550Mi + 2 x 200Mi passes 900Mi; pod 3 is not measured.
			name: "the decision's own placements count", weight: []int64{200 * mib}, placed: []int32{2, 3},
			want: map[int32]string{
				0: "pod adapter-0 measured 950Mi of memory; with 1 vreplica(s) more at 200Mi it passes the hot-pod limit of 900Mi",
				1: "",
				2: "pod adapter-2 measured 550Mi of memory; with 2 vreplica(s) more at 200Mi it passes the hot-pod limit of 900Mi",
				3: "",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, g := guardCluster()
			if tc.weight != nil {
				g.Costs = map[types.NamespacedName][]int64{src: tc.weight}
			}
			if tc.declared != "" {
				c.Cost(src, frameworktest.Resources("memory", tc.declared))
			}
			d, err := framework.NewDecision(framework.Place, c, frameworktest.NewVPod(src.Namespace, src.Name, 10), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, ord := range tc.placed {
				p, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{frameworktest.OnlyPod(ord)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Run(context.Background(), d, 1, nil); err != nil {
					t.Fatal(err)
				}
			}
			got := map[int32]string{}
			for ord := int32(0); ord < 4; ord++ {
				got[ord] = g.Filter(context.Background(), d, ord).Message()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
