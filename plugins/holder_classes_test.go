package plugins

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// removeProfiles are the in-tree descheduler policies the holder classes
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
		if !ps.Remove.HolderGrouped() {
			t.Fatalf("%s: the descheduler profile is not evaluated by removal class", name)
		}
		out[name] = ps.Remove
	}
	return out
}

// TestRemovalClassesAreExact checks, on thousands of random clusters (pods
// cordoned, draining, missing or unbound, stale status naming pods that are
// gone) and on larger ones where many holders share a class, that removing
// by holder class (one holder per node, zone, candidacy and count) removes
// exactly as evaluating every holder does (an explanation evaluates every
// holder), for every in-tree descheduler policy. A run that keeps scores
// (longer scenarios) chooses by holder group, the classes of one node,
// zone and candidacy (framework/removegroups.go), which this checks too.
func TestRemovalClassesAreExact(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	profiles := removeProfiles(t, rng)
	for _, name := range []string{"default", "seed", "random0", "random1", "random2", "random3", "random4", "random5"} {
		p := profiles[name]
		for i := range 400 {
			sc := ft.RandomScenario(rng)
			if i%4 == 0 {
				sc = largeScenario(rng)
			}
			checkClasses(t, fmt.Sprintf("%s, scenario %d", name, i), p, sc.Cluster, longer(sc, i))
		}
	}
}

// largeScenario is a cluster of 3 to 5 zones, 3 to 12 nodes and 60 to 200 pods
// of capacity 3 to 12, partly used by other sources, on which the source
// holds few distinct counts on many pods, so that holder classes have many
// members; it sometimes cordons a node or drains pods. N is up to twice
// what the source holds, at most 100.
func largeScenario(rng *rand.Rand) ft.Scenario {
	capacity := 3 + rng.Int31n(10)
	c := ft.NewCluster(capacity)
	nodes := 3 + rng.Intn(10)
	zones := min(nodes, 3+rng.Intn(3))
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("node-%d", i)
		c.Node(names[i], fmt.Sprintf("zone-%d", i%zones))
	}
	if rng.Intn(4) == 0 {
		c.Cordon(names[rng.Intn(nodes)])
	}
	pods := 60 + rng.Intn(141)
	for i := range pods {
		c.Pods(names[i%nodes])
	}
	var base []vsched.Placement
	var held int32
	for ord := range int32(pods) {
		other := []int32{0, 0, 1, capacity / 2}[rng.Intn(4)]
		mine := int32(0)
		if rng.Intn(3) > 0 {
			mine = min(capacity-other, []int32{1, 1, 2, capacity}[rng.Intn(4)])
		}
		if rng.Intn(30) == 0 {
			c.Drain(ord)
		}
		c.Use(ord, other+mine)
		if mine > 0 {
			base = append(base, ft.P(ord, mine))
			held += mine
		}
	}
	rng.Shuffle(len(base), func(i, j int) { base[i], base[j] = base[j], base[i] })
	return ft.Scenario{Cluster: c, Base: base, N: 1 + rng.Int31n(min(2*held+2, 100))}
}

// placeProfiles are the in-tree scheduler policies: the default, Kafka HA
// (the seed example's), deploy/sample's hard zone spread, and the design
// document's example profile.
var placeProfiles = map[string]map[string]string{
	"default": nil,
	"kafkaHA": {
		"predicates": `[{"Name":"PodFitsResources"},{"Name":"NoMaxResourceCount","Args":{"NumPartitions":100}}]`,
		"priorities": `[{"Name":"AvailabilityZonePriority","Weight":10,"Args":{"MaxSkew":2}},{"Name":"LowestOrdinalPriority","Weight":2},{"Name":"EvenPodSpread","Weight":2,"Args":{"MaxSkew":2}}]`,
	},
	"zoneHard": {
		"predicates": `[{"Name":"PodFitsResources"},{"Name":"EvenZoneSpread","Args":{"MaxSkew":1}}]`,
		"priorities": `[{"Name":"AvailabilityNodePriority","Weight":8,"Args":{"MaxSkew":1}},{"Name":"InUsePodPriority","Weight":4},` +
			`{"Name":"EvenPodSpread","Weight":2,"Args":{"MaxSkew":1}},{"Name":"BalancedZonePriority","Weight":1}]`,
	},
	"example": {
		"predicates": `[{"Name":"PodFitsResources"},{"Name":"NoMaxResourceCount","Args":{"NumPartitions":100}},{"Name":"EvenPodSpread","Args":{"MaxSkew":2}}]`,
		"priorities": `[{"Name":"AvailabilityZonePriority","Weight":10,"Args":{"MaxSkew":2}},{"Name":"LowestOrdinalPriority","Weight":2}]`,
	},
}

// placeProfile builds the scheduler profile of the in-tree policy name
// (a key of placeProfiles, or "default").
func placeProfile(t *testing.T, name string) *framework.Profile {
	t.Helper()
	var cm *corev1.ConfigMap
	if data := placeProfiles[name]; data != nil {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultSchedulerConfigMapName}, Data: data}
	}
	ps, err := config.BuildProfilesFromConfigMaps(context.Background(), MustInTreeRegistry(), cm, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ps.Place
}

// TestPlacingHolderClassesAreExact checks, on the same random clusters,
// with and without the free-candidate indexes (the zone-grouped path and
// the node-grouped one), that placing with one holder per holder class
// (node, zone, count and free capacity) places exactly as evaluating every
// candidate does, for every in-tree scheduler policy. The costed variants
// evaluate their holders one by one (PodFitsCosts reads a pod's
// resources), which TestCostClassesAreExact checks.
func TestPlacingHolderClassesAreExact(t *testing.T) {
	rng := rand.New(rand.NewSource(2121))
	for _, name := range []string{"default", "kafkaHA", "zoneHard", "example"} {
		p := placeProfile(t, name)
		if !p.HolderGrouped() || !p.Grouped() {
			t.Fatalf("%s: the scheduler profile is not evaluated by holder class", name)
		}
		for i := range 250 {
			sc := ft.RandomScenario(rng)
			if i%4 == 0 {
				sc = largeScenario(rng)
			}
			for _, c := range []framework.Cluster{sc.Cluster, sc.Cluster.Indexed()} {
				checkClasses(t, fmt.Sprintf("%s, scenario %d (%T)", name, i, c), p, c, longer(sc, i))
			}
		}
	}
}

// checkClasses runs p over the scenario on c twice, by holder class and
// evaluating every candidate (an explanation does), and fails unless both
// change as many vreplicas and leave the same placements.
func checkClasses(t *testing.T, what string, p *framework.Profile, c framework.Cluster, sc ft.Scenario) {
	t.Helper()
	src := ft.NewVPod("ns", "src", 0, sc.Base...)
	n1, n2, diff := keptAndExplained(t, p, c, src, sc.Base, sc.N)
	if diff != "" || n1 != n2 {
		t.Fatalf("%s (base %v, %s %d): by class %d, every candidate %d; placements (-every candidate +by class):\n%s",
			what, sc.Base, p.Mode(), sc.N, n1, n2, diff)
	}
}

// keptAndExplained runs p for n vreplicas of src from base twice, each on
// a new decision: as a Run does (no explanation: holder classes, kept
// scores and verdicts) and evaluating every candidate (an explanation
// does). It returns what each changed and the placements' difference
// (-every candidate +the run's).
func keptAndExplained(t *testing.T, p *framework.Profile, c framework.Cluster, src vsched.VPod, base []vsched.Placement, n int32) (changed, every int32, diff string) {
	t.Helper()
	run := func(ex *framework.Explanation) (int32, string) {
		d, err := framework.NewDecision(p.Mode(), c, src, base)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), d, n, ex)
		if err != nil {
			t.Fatal(err)
		}
		return res.Changed, fmt.Sprint(d.Placements())
	}
	n1, p1 := run(nil)
	n2, p2 := run(&framework.Explanation{})
	return n1, n2, cmp.Diff(p2, p1)
}

// longer makes every other scenario (odd i) long enough for the runtime to
// keep scores from step to step (framework.ScoreInputs, from 16
// vreplicas): 40 vreplicas more, so that a small scenario too places
// (removes) until no pod can take (hold) another. Explanations keep no
// score, so checkClasses then compares kept scores with scoring every
// candidate.
func longer(sc ft.Scenario, i int) ft.Scenario {
	if i%2 == 1 {
		sc.N += 40
	}
	return sc
}
