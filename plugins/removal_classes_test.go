package plugins

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// removeProfiles are the in-tree descheduler policies the removal classes
// must keep exact: the default, the design document's seed (pod and zone
// spread with MaxSkew 2, then the highest ordinal), and random weights and
// MaxSkews of the four removal priorities.
func removeProfiles(t *testing.T, rng *rand.Rand) map[string]*framework.Profile {
	t.Helper()
	data := map[string]string{
		"default": "",
		"seed": `[{"Name":"RemoveWithEvenPodSpreadPriority","Weight":10,"Args":{"MaxSkew":2}},` +
			`{"Name":"RemoveWithAvailabilityZonePriority","Weight":10,"Args":{"MaxSkew":2}},{"Name":"RemoveWithHighestOrdinalPriority","Weight":2}]`,
	}
	for i := range 6 {
		w := func() int { return rng.Intn(11) }
		k := func() int { return 1 + rng.Intn(3) }
		data[fmt.Sprintf("random%d", i)] = fmt.Sprintf(`[{"Name":"RemoveWithAvailabilityZonePriority","Weight":%d,"Args":{"MaxSkew":%d}},`+
			`{"Name":"RemoveWithAvailabilityNodePriority","Weight":%d,"Args":{"MaxSkew":%d}},`+
			`{"Name":"RemoveWithEvenPodSpreadPriority","Weight":%d,"Args":{"MaxSkew":%d}},{"Name":"RemoveWithHighestOrdinalPriority","Weight":%d}]`,
			w(), k(), w(), k(), w(), k(), w())
	}
	out := map[string]*framework.Profile{}
	for name, priorities := range data {
		var cm *corev1.ConfigMap
		if priorities != "" {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultDeschedulerConfigMapName},
				Data: map[string]string{"priorities": priorities}}
		}
		ps, err := config.BuildProfilesFromConfigMaps(context.Background(), MustInTreeRegistry(), nil, cm)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !ps.Remove.RemovalGrouped() {
			t.Fatalf("%s: the descheduler profile is not evaluated by removal class", name)
		}
		out[name] = ps.Remove
	}
	return out
}

// TestRemovalClassesAreExact checks, on thousands of random clusters (pods
// cordoned, draining, missing or unbound, stale status naming pods that are
// gone), that removing by class (one holder per node, zone, candidacy and
// count) removes exactly as evaluating every holder does (an explanation
// evaluates every holder), for every in-tree descheduler policy.
func TestRemovalClassesAreExact(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	profiles := removeProfiles(t, rng)
	for _, name := range []string{"default", "seed", "random0", "random1", "random2", "random3", "random4", "random5"} {
		p := profiles[name]
		for i := range 1500 {
			sc := ft.RandomScenario(rng)
			src := ft.NewVPod("ns", "src", 0, sc.Base...)
			run := func(ex *framework.Explanation) (int32, string) {
				d, err := framework.NewDecision(framework.Remove, sc.Cluster, src, sc.Base)
				if err != nil {
					t.Fatal(err)
				}
				res, err := p.Run(context.Background(), d, sc.N, ex)
				if err != nil {
					t.Fatal(err)
				}
				return res.Changed, fmt.Sprint(d.Placements())
			}
			n1, p1 := run(nil)
			n2, p2 := run(&framework.Explanation{})
			if diff := cmp.Diff(p2, p1); diff != "" || n1 != n2 {
				t.Fatalf("%s, scenario %d (base %v, remove %d): classes removed %d, every holder %d; placements (-every holder +classes):\n%s",
					name, i, sc.Base, sc.N, n1, n2, diff)
			}
		}
	}
}
