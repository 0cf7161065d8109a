package framework_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// feasibleStep is what feasibleRecorder saw of one step: the summary
// FeasibleZoneStats gave, the zones of the candidates scored (every
// feasible one: the recorder is not equivalence-aware) and the source's
// count per zone.
type feasibleStep struct {
	got    framework.DomainStats
	zones  map[int32]bool
	onZone []int32
}

type feasibleRecorder struct{ steps *[]feasibleStep }

func (feasibleRecorder) Name() string { return "FeasibleRecorder" }
func (r feasibleRecorder) Score(_ context.Context, d *framework.Decision, ord int32) (int64, *framework.Status) {
	steps := *r.steps
	if int32(len(steps)) <= d.Changed() {
		c := d.Cluster()
		st := feasibleStep{got: d.FeasibleZoneStats(), zones: map[int32]bool{}, onZone: make([]int32, c.NumZones())}
		for z := range st.onZone {
			st.onZone[z] = d.OnZone(int32(z))
		}
		steps = append(steps, st)
	}
	if _, z, ok := d.PodDomains(ord); ok && z >= 0 {
		steps[len(steps)-1].zones[z] = true
	}
	*r.steps = steps
	return 0, nil
}

// During every step of random runs (random clusters, random pods
// rejected, so that a zone with room sometimes has no feasible pod, and
// sometimes every zone has one), FeasibleZoneStats is the summary of the
// counted zones holding a candidate scored in that step, whether the
// decision keeps its summaries or walks them.
func TestFeasibleZoneStatsInSteps(t *testing.T) {
	for _, keepMin := range []int32{0, 1 << 30} {
		t.Run(fmt.Sprintf("keepMin %d", keepMin), func(t *testing.T) {
			defer framework.SetKeepMin(keepMin)()
			rng := rand.New(rand.NewSource(7))
			for seed := range 300 {
				checkFeasibleSteps(t, seed, rng)
			}
		})
	}
}

func checkFeasibleSteps(t *testing.T, seed int, rng *rand.Rand) {
	t.Helper()
	sc := ft.RandomScenario(rng)
	var rejected []int32
	for ord := range sc.Cluster.Replicas() {
		if rng.Intn(4) == 0 {
			rejected = append(rejected, ord)
		}
	}
	var steps []feasibleStep
	p, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{ft.CapacityFilter{}, &ft.RejectFilter{Ordinals: rejected}},
		[]framework.WeightedScore{{Plugin: feasibleRecorder{steps: &steps}, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := framework.NewDecision(framework.Place, sc.Cluster, nil, sc.Base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), d, 1+rng.Int31n(20), nil); err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		var counts []int32
		for _, z := range sc.Cluster.SchedulableZones() {
			if st.zones[z] {
				counts = append(counts, st.onZone[z])
			}
		}
		if diff := cmp.Diff(ft.StatsOf(counts), st.got); diff != "" {
			t.Fatalf("seed %d, step %d (zones scored %v): FeasibleZoneStats (-want +got):\n%s", seed, i, st.zones, diff)
		}
	}
}
