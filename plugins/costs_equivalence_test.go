package plugins

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/evenpodspread"
	"github.com/vsched/vsched/plugins/core/inusepodpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

// TestCostClassesAreExact checks, on thousands of random clusters whose
// pods have memory and whose source has a cost, that the costed variant's
// cost classes (one pod per node, free slots and memory use) place exactly
// as evaluating every candidate does (an explanation evaluates every
// candidate), for the default policy and deploy/sample's.
func TestCostClassesAreExact(t *testing.T) {
	reg := MustInTreeRegistry()
	sample := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultSchedulerConfigMapName}, Data: map[string]string{
		"predicates": `[{"Name":"PodFitsResources"},{"Name":"EvenZoneSpread","Args":{"MaxSkew":1}}]`,
		"priorities": `[{"Name":"AvailabilityNodePriority","Weight":8,"Args":{"MaxSkew":1}},{"Name":"InUsePodPriority","Weight":4},` +
			`{"Name":"EvenPodSpread","Weight":2,"Args":{"MaxSkew":1}},{"Name":"BalancedZonePriority","Weight":1}]`,
	}}
	for _, cm := range []*corev1.ConfigMap{nil, sample} {
		ps, err := config.BuildProfilesFromConfigMaps(context.Background(), reg, cm, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ps.Place.Costed() == nil {
			t.Fatal("no costed variant")
		}
		for _, indexed := range []bool{false, true} {
			rng := rand.New(rand.NewSource(7))
			for i := range 3000 {
				sc := ft.RandomScenario(rng)
				cc := ft.WithResources(sc.Cluster, ft.Resources("memory", "1000"))
				var c framework.Cluster = cc
				usedUpTo := int32(39)
				if indexed {
					// The index's contract: a pod above the highest
					// in use holds nothing, so it uses nothing.
					ic := indexedCosts{cc, sc.Cluster.Indexed()}
					c, usedUpTo = ic, min(usedUpTo, ic.HighestUsedOrdinal())
				}
				for ord := int32(0); ord <= usedUpTo; ord++ {
					cc.UseResources(ord, ft.Resources("memory", fmt.Sprint([]int{0, 100, 300}[rng.Intn(3)])))
				}
				src := ft.NewVPod("ns", "src", 0, sc.Base...)
				cc.Cost(src.Key, ft.Resources("memory", fmt.Sprint([]int{50, 100, 250}[rng.Intn(3)])))
				if indexed {
					// Other sources cheaper than this one: pods it
					// would strand slots on count as full for it.
					cc.Cheapest(ft.Resources("memory", fmt.Sprint([]int{0, 30, 100}[rng.Intn(3)])))
				}
				if msg := sameWithClasses(ps.Place, c, src, sc); msg != "" {
					t.Fatalf("indexed %v, scenario %d: %s", indexed, i, msg)
				}
			}
		}
	}
}

// indexedCosts is a CostCluster with the free-candidate index of its
// Cluster, as the state has both.
type indexedCosts struct {
	*ft.CostCluster
	ix ft.Indexed
}

func (c indexedCosts) EachFreeCandidate(node int32, fn func(int32) bool) {
	c.ix.EachFreeCandidate(node, fn)
}

func (c indexedCosts) HighestUsedOrdinal() int32 { return c.ix.HighestUsedOrdinal() }

// sameWithClasses runs the scenario with cost classes and with every pod
// evaluated (an explanation), and says how they differ ("" when they do
// not).
func sameWithClasses(place *framework.Profile, c framework.Cluster, src *ft.VPod, sc ft.Scenario) string {
	run := func(ex *framework.Explanation) (framework.Result, string) {
		d, err := framework.NewDecision(framework.Place, c, src, sc.Base)
		if err != nil {
			return framework.Result{}, err.Error()
		}
		res, err := place.Run(context.Background(), d, sc.N, ex)
		if err != nil {
			return framework.Result{}, err.Error()
		}
		return framework.Result{Changed: res.Changed}, fmt.Sprint(d.Placements())
	}
	r1, p1 := run(nil)
	r2, p2 := run(&framework.Explanation{})
	if diff := cmp.Diff(r2, r1); diff != "" || p1 != p2 {
		return fmt.Sprintf("classes %v %s, every pod %v %s", r1, p1, r2, p2)
	}
	return ""
}

// TestStrandsWithoutCostVariant checks that a grouped profile without a
// costed variant (a registry without cost plugins), which evaluates one
// pod per node class whatever the pods' use, places a source with a cost
// exactly as evaluating every pod does: InUsePodPriority's Strands, which
// reads a pod's use, is off there.
func TestStrandsWithoutCostVariant(t *testing.T) {
	place := plugintest.GroupedProfile(t, []framework.FilterPlugin{podfitsresources.New()},
		[]framework.WeightedScore{{Plugin: inusepodpriority.New(), Weight: 2},
			{Plugin: plugintest.Build(t, evenpodspread.New, nil), Weight: 1}})
	rng := rand.New(rand.NewSource(11))
	for i := range 2000 {
		sc := ft.RandomScenario(rng)
		cc := ft.WithResources(sc.Cluster, ft.Resources("memory", "1000"))
		ic := indexedCosts{cc, sc.Cluster.Indexed()}
		for ord := int32(0); ord <= ic.HighestUsedOrdinal(); ord++ {
			cc.UseResources(ord, ft.Resources("memory", fmt.Sprint([]int{0, 100, 300}[rng.Intn(3)])))
		}
		src := ft.NewVPod("ns", "src", 0, sc.Base...)
		cc.Cost(src.Key, ft.Resources("memory", fmt.Sprint([]int{50, 100, 250}[rng.Intn(3)])))
		cc.Cheapest(ft.Resources("memory", fmt.Sprint([]int{100, 200}[rng.Intn(2)])))
		if msg := sameWithClasses(place, ic, src, sc); msg != "" {
			t.Fatalf("scenario %d: %s", i, msg)
		}
	}
}
