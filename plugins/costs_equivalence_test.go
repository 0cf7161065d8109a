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
		rng := rand.New(rand.NewSource(7))
		for i := range 3000 {
			sc := ft.RandomScenario(rng)
			c := ft.WithResources(sc.Cluster, ft.Resources("memory", "1000"))
			for ord := int32(0); ord < 40; ord++ {
				c.UseResources(ord, ft.Resources("memory", fmt.Sprint([]int{0, 100, 300}[rng.Intn(3)])))
			}
			src := ft.NewVPod("ns", "src", 0, sc.Base...)
			c.Cost(src.Key, ft.Resources("memory", fmt.Sprint([]int{50, 100, 250}[rng.Intn(3)])))
			run := func(ex *framework.Explanation) (framework.Result, string) {
				d, err := framework.NewDecision(framework.Place, c, src, sc.Base)
				if err != nil {
					t.Fatal(err)
				}
				res, err := ps.Place.Run(context.Background(), d, sc.N, ex)
				if err != nil {
					t.Fatal(err)
				}
				return framework.Result{Changed: res.Changed}, fmt.Sprint(d.Placements())
			}
			r1, p1 := run(nil)
			r2, p2 := run(&framework.Explanation{})
			if diff := cmp.Diff(r2, r1); diff != "" || p1 != p2 {
				t.Fatalf("scenario %d: classes %v %s, every pod %v %s", i, r1, p1, r2, p2)
			}
		}
	}
}
