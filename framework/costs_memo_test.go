package framework_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// TestResourceFreeAcrossReset checks that a decision Reset from one source
// to another reads each source's ResourceFree, not the one before's kept
// answers: pods of 4Gi (4096Mi), pod 0 using 3000Mi, pod 1 nothing.
func TestResourceFreeAcrossReset(t *testing.T) {
	c := ft.WithResources(ft.NewCluster(20).Node("n0", "za").Pods("n0", "n0").Use(0, 12),
		ft.Resources("memory", "4Gi")).
		UseResources(0, ft.Resources("memory", "3000Mi"))
	costly, light, free := ft.NewVPod("ns", "costly", 1), ft.NewVPod("ns", "light", 1), ft.NewVPod("ns", "free", 1)
	c.Cost(costly.Key, ft.Resources("memory", "1000Mi"))
	c.Cost(light.Key, ft.Resources("memory", "100Mi"))
	const mi = 1 << 20 * 1000 // one Mi in milli-units
	d, err := framework.NewDecision(framework.Place, c, costly, nil)
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		src  *ft.VPod
		want [2]int64
	}
	for _, s := range []step{
		{costly, [2]int64{1096 * mi, 4096 * mi}},
		// The same answers, but read again after the Reset.
		{light, [2]int64{1096 * mi, 4096 * mi}},
		// A source without a cost: 0 everywhere.
		{free, [2]int64{0, 0}},
		{costly, [2]int64{1096 * mi, 4096 * mi}},
	} {
		if err := d.Reset(framework.Place, c, s.src, nil); err != nil {
			t.Fatal(err)
		}
		var got [2]int64
		for ord := range int32(2) {
			got[ord] = d.ResourceFree(ord, 0)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: ResourceFree of pods 0 and 1 (-want +got):\n%s", s.src.Key.Name, diff)
		}
	}
}
