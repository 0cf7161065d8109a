package removal_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/removewithavailabilitynodepriority"
	"github.com/vsched/vsched/plugins/core/removewithavailabilityzonepriority"
	"github.com/vsched/vsched/plugins/core/removewithevenpodspreadpriority"
	"github.com/vsched/vsched/plugins/core/removewithhighestordinalpriority"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

func weight(w int32) *int32 { return &w }

// seedProfile builds the seed design's example descheduler profile:
//
//	RemoveWithEvenPodSpreadPriority    weight 10, MaxSkew 2
//	RemoveWithAvailabilityZonePriority weight 10, MaxSkew 2
//	RemoveWithHighestOrdinalPriority   weight 2
//
// from configuration, through a registry of the four descheduler plugins.
func seedProfile(t *testing.T) *framework.Profile {
	t.Helper()
	reg, err := framework.NewRegistry(
		removewithevenpodspreadpriority.Spec.Registration(),
		removewithavailabilityzonepriority.Spec.Registration(),
		removewithavailabilitynodepriority.Spec.Registration(),
		removewithhighestordinalpriority.Spec.Registration(),
	)
	if err != nil {
		t.Fatal(err)
	}
	cfg := framework.ProfileConfig{Mode: framework.Remove, Scores: []framework.PluginConfig{
		{Name: "RemoveWithEvenPodSpreadPriority", Weight: weight(10), Args: []byte(`{"MaxSkew": 2}`)},
		{Name: "RemoveWithAvailabilityZonePriority", Weight: weight(10), Args: []byte(`{"MaxSkew": 2}`)},
		{Name: "RemoveWithHighestOrdinalPriority", Weight: weight(2)},
	}}
	p, errs := framework.BuildProfile(context.Background(), reg, cfg, field.NewPath("predicates"), field.NewPath("priorities"))
	if len(errs) > 0 {
		t.Fatalf("BuildProfile: %v", errs)
	}
	return p
}

// threeZones has one node per zone and two pods per node: pods 0 and 3 in
// zone-a, 1 and 4 in zone-b, 2 and 5 in zone-c. R = 6, so the ordinal score
// is 100*o/5 = 20*o.
func threeZones() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).
		Node("n0", "zone-a").Node("n1", "zone-b").Node("n2", "zone-c").
		Pods("n0", "n1", "n2", "n0", "n1", "n2")
}

// source is 10 vreplicas: pods {0:3, 1:2, 2:2, 3:1, 4:1, 5:1}, zones a=4,
// b=3, c=3.
var source = []vsched.Placement{
	frameworktest.P(0, 3), frameworktest.P(1, 2), frameworktest.P(2, 2),
	frameworktest.P(3, 1), frameworktest.P(4, 1), frameworktest.P(5, 1),
}

// remove runs profile on a Remove decision for source on c and returns the
// placements left and, per removal, every candidate's weighted total.
func remove(t *testing.T, profile *framework.Profile, c *frameworktest.Cluster, n int32) ([]vsched.Placement, []int32, []map[int32]int64) {
	t.Helper()
	d := plugintest.DecideRemove(t, c, plugintest.Source(0, source...))
	ex := &framework.Explanation{}
	res, err := profile.Run(context.Background(), d, n, ex)
	if err != nil || res.Changed != n {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	var order []int32
	var totals []map[int32]int64
	for _, s := range ex.Steps {
		order = append(order, s.Winner)
		m := map[int32]int64{}
		for _, cand := range s.Candidates {
			m[cand.Ordinal] = cand.Total
		}
		totals = append(totals, m)
	}
	return d.Placements(), order, totals
}

// TestSeedDescheduler runs the seed's example descheduler profile. The
// design it descends from summed the weighted scores in uint64, where the
// spread priorities' large values wrapped around and the sum ranked pods
// backwards: the pod holding the fewest went first. Here each total is
// 10*pod + 10*zone + 2*ordinal, at most 2200, in int64; the removals come
// from the fullest pods of the fullest zones, and the ordinal only settles
// ties between equally good pods.
func TestSeedDescheduler(t *testing.T) {
	profile := seedProfile(t)
	t.Run("evens out pods and zones", func(t *testing.T) {
		got, order, totals := remove(t, profile, threeZones(), 4)
		// Preferred removals score 100 - 50*(Max-c)/MaxSkew, forbidden 0.
		// pod: Max 3, MaxSkew 2. Emptying a 1 leaves {3,..,0} skew 3
		// > 2 while the 3 leaves skew 1: forbidden (0). A 2 leaves
		// skew 2: 100 - 50*(3-2)/2 = 75.
		// zone: {4,3,3}, from a (fullest) 100, from b or c {4,2,3}
		// skew 2: 75.
		// Step 1: pod 0: 10*100 + 10*100 + 2*0   = 2000
		//         pod 1: 10*75  + 10*75  + 2*20  = 1540
		//         pod 2: 10*75  + 10*75  + 2*40  = 1580
		//         pod 3: 10*0   + 10*100 + 2*60  = 1120
		//         pod 4: 10*0   + 10*75  + 2*80  =  910
		//         pod 5: 10*0   + 10*75  + 2*100 =  950  -> pod 0
		// Step 2: pods {2,2,2,1,1,1}: 2s 100, 1s 75 (skew 2 allowed);
		//         zones {3,3,3}: all 100. Pods 0-2 tie on spread at
		//         2000, the ordinal picks pod 2 (2080).
		// Step 3: pods {2,2,1,1,1,1}; zones a=3, b=3, c=2: c scores
		//         75. Pod 1: 1000+1000+40 = 2040 beats pod 0 (2000) and
		//         pod 4 (750+1000+160 = 1910).
		// Step 4: pods {2,1,1,1,1,1}; zones a=3, b=2, c=2: pod 0
		//         1000+1000 = 2000 beats pod 3 (750+1000+120 = 1870).
		wantTotals := []map[int32]int64{
			{0: 2000, 1: 1540, 2: 1580, 3: 1120, 4: 910, 5: 950},
			{0: 2000, 1: 2040, 2: 2080, 3: 1870, 4: 1910, 5: 1950},
			{0: 2000, 1: 2040, 2: 1580, 3: 1870, 4: 1910, 5: 1700},
			{0: 2000, 1: 1540, 2: 1580, 3: 1870, 4: 1660, 5: 1700},
		}
		if diff := cmp.Diff(wantTotals, totals); diff != "" {
			t.Errorf("weighted totals (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int32{0, 2, 1, 0}, order); diff != "" {
			t.Errorf("removal order (-want +got):\n%s", diff)
		}
		want := []vsched.Placement{
			plugintest.At(0, 1, "n0", "zone-a"), plugintest.At(1, 1, "n1", "zone-b"), plugintest.At(2, 1, "n2", "zone-c"),
			plugintest.At(3, 1, "n0", "zone-a"), plugintest.At(4, 1, "n1", "zone-b"), plugintest.At(5, 1, "n2", "zone-c"),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("placements (-want +got):\n%s", diff)
		}
	})
	t.Run("cordoned zone first", func(t *testing.T) {
		// n2 (zone-c) is cordoned: pods 2 and 5 are not candidates and
		// score 100 on both spread plugins; zone-c is not counted.
		// Step 1: pod 5: 1000+1000+200 = 2200, pod 2: 2080, pod 0:
		//         2000 (pods {3,2,1,1} and zones {4,3} as counted).
		// Steps 2-3: pod 2 (2080) twice. Step 4: pod 0 (2000).
		got, order, _ := remove(t, profile, threeZones().Cordon("n2"), 4)
		if diff := cmp.Diff([]int32{5, 2, 2, 0}, order); diff != "" {
			t.Errorf("removal order (-want +got):\n%s", diff)
		}
		want := []vsched.Placement{
			plugintest.At(0, 2, "n0", "zone-a"), plugintest.At(1, 2, "n1", "zone-b"), plugintest.At(3, 1, "n0", "zone-a"), plugintest.At(4, 1, "n1", "zone-b"),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("placements (-want +got):\n%s", diff)
		}
	})
	t.Run("ordinal alone would compact instead", func(t *testing.T) {
		// For contrast: HighestOrdinalPriority alone (by its alias)
		// empties pods 5, 4, 3 and takes one from 2, leaving pods
		// {3,2,1} and zones a=3, b=2, c=1.
		reg, _ := framework.NewRegistry(removewithhighestordinalpriority.Spec.Registration())
		p, errs := framework.BuildProfile(context.Background(), reg, framework.ProfileConfig{
			Mode: framework.Remove, Scores: []framework.PluginConfig{{Name: "HighestOrdinalPriority"}},
		}, field.NewPath("predicates"), field.NewPath("priorities"))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		got, order, _ := remove(t, p, threeZones(), 4)
		if diff := cmp.Diff([]int32{5, 4, 3, 2}, order); diff != "" {
			t.Errorf("removal order (-want +got):\n%s", diff)
		}
		want := []vsched.Placement{plugintest.At(0, 3, "n0", "zone-a"), plugintest.At(1, 2, "n1", "zone-b"), plugintest.At(2, 1, "n2", "zone-c")}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("placements (-want +got):\n%s", diff)
		}
	})
}
