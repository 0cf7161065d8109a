package framework_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// changeRecorder scores as its table says and adds up, per ordinal, the
// changes the runtime reports having applied.
type changeRecorder struct {
	ft.ScriptedScorer
	changes map[int32]int32
}

func (r *changeRecorder) Changed(_ *framework.Decision, ord, delta int32) { r.changes[ord] += delta }

// TestDenseCountsMatchChanges checks OnPod and Free, which a decision reads
// from slices indexed by ordinal once it has changed placeDenseMin
// vreplicas or a run is to (placedense.go) and from maps before, against
// the base placements plus the changes the runtime reported, for every
// ordinal after every run, and the summaries against a recount (the
// touched nodes are marked there too): dense from the first change, from a
// few, and never; on a new decision and on one Reset (which keeps its
// slices); on a plain cluster and on one whose RoomIndex the summaries read.
func TestDenseCountsMatchChanges(t *testing.T) {
	for _, denseMin := range []int32{0, 3, 1 << 30} {
		for _, indexed := range []bool{false, true} {
			t.Run(fmt.Sprintf("denseMin %d, indexed %t", denseMin, indexed), func(t *testing.T) {
				defer framework.SetPlaceDenseMin(denseMin)()
				defer framework.SetKeepMin(0)()
				if indexed {
					defer framework.SetRoomIndexMin(0)()
				}
				checkDense(t, indexed)
			})
		}
	}
}

func checkDense(t *testing.T, indexed bool) {
	for seed := int64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		sc := ft.RandomScenario(rng)
		base := map[int32]int32{}
		for _, p := range sc.Base {
			ord, err := vsched.OrdinalFromPodName(p.PodName)
			if err != nil {
				t.Fatal(err)
			}
			base[ord] += p.VReplicas
		}
		var cl framework.Cluster = sc.Cluster
		if indexed {
			cl = sc.Cluster.Indexed()
		}
		for _, mode := range []framework.Mode{framework.Place, framework.Remove} {
			d, err := framework.NewDecision(mode, cl, nil, sc.Base)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("seed %d, %s", seed, mode)
			denseSteps(t, rng, sc, d, base, what)
			if err := d.Reset(mode, cl, nil, sc.Base); err != nil {
				t.Fatal(err)
			}
			denseSteps(t, rng, sc, d, base, what+", reset")
		}
	}
}

// denseSteps runs on d, up to 40 times or until nothing changes, a profile
// whose scorer ranks the pods at random, checking the counts after each run.
func denseSteps(t *testing.T, rng *rand.Rand, sc ft.Scenario, d *framework.Decision, base map[int32]int32, what string) {
	t.Helper()
	changes := map[int32]int32{}
	checkDenseCounts(t, what+", start", d, base, changes)
	var filters []framework.FilterPlugin
	if d.Mode() == framework.Place {
		filters = append(filters, ft.CapacityFilter{})
	}
	for step := range 40 {
		scores := map[int32]int64{}
		for ord := range sc.Cluster.Replicas() + 3 {
			scores[ord] = rng.Int63n(101)
		}
		rec := &changeRecorder{ScriptedScorer: ft.ScriptedScorer{Scores: scores}, changes: changes}
		p, err := framework.NewProfile(d.Mode(), filters, []framework.WeightedScore{{Plugin: rec, Weight: 1}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), d, 1+rng.Int31n(3), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkDenseCounts(t, fmt.Sprintf("%s, step %d", what, step), d, base, changes)
		checkSummaries(t, fmt.Sprintf("%s, step %d", what, step), d, true)
		if res.Changed == 0 {
			return
		}
	}
}

func checkDenseCounts(t *testing.T, what string, d *framework.Decision, base, changes map[int32]int32) {
	t.Helper()
	c := d.Cluster()
	for ord := int32(-2); ord < c.Replicas()+16; ord++ {
		if got, want := d.OnPod(ord), base[ord]+changes[ord]; got != want {
			t.Fatalf("%s: OnPod(%d) = %d, want %d (base %d, changed %d)", what, ord, got, want, base[ord], changes[ord])
		}
		if got, want := d.Free(ord), c.Free(ord)-changes[ord]; got != want {
			t.Fatalf("%s: Free(%d) = %d, want %d (cluster %d, changed %d)", what, ord, got, want, c.Free(ord), changes[ord])
		}
	}
}
