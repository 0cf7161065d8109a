package framework_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// outcome is everything a Run leaves behind that callers can see.
type outcome struct {
	Placements []vsched.Placement
	Result     framework.Result
	Err        string
	Changes    []ft.Change
}

func runOnce(t *testing.T, p *framework.Profile, c framework.Cluster, sc ft.Scenario, mode framework.Mode, ex *framework.Explanation, rec *ft.Recorder) outcome {
	t.Helper()
	d, err := framework.NewDecision(mode, c, ft.NewVPod("ns", "src", 0), sc.Base)
	if err != nil {
		t.Fatalf("NewDecision: %v", err)
	}
	return runOn(t, p, d, sc, ex, rec)
}

// runOn is runOnce on a decision already made.
func runOn(t *testing.T, p *framework.Profile, d *framework.Decision, sc ft.Scenario, ex *framework.Explanation, rec *ft.Recorder) outcome {
	t.Helper()
	if rec != nil {
		rec.Reset()
	}
	res, err := p.Run(context.Background(), d, sc.N, ex)
	o := outcome{Placements: d.Placements(), Result: res}
	if err != nil {
		o.Err = err.Error()
	}
	if rec != nil {
		o.Changes = rec.Changes()
	}
	return o
}

// randomProfile draws a profile of equivalence-aware fakes that mimic the
// real spread plugins, with random weights (0 included), and returns it with
// a twin that holds one more, non-equivalence-aware, weight-0 scorer: the
// twin is evaluated pod by pod even without an explanation, and must decide
// the same.
func randomProfile(t *testing.T, rng *rand.Rand, mode framework.Mode) (grouped, podByPod *framework.Profile, rec *ft.Recorder, desc string) {
	t.Helper()
	var filters []framework.FilterPlugin
	var parts []string
	if mode == framework.Place {
		filters = append(filters, ft.CapacityFilter{})
		if rng.Intn(3) == 0 {
			limit := 1 + rng.Intn(6)
			filters = append(filters, ft.MaxPodsFilter{Limit: limit})
			parts = append(parts, fmt.Sprintf("maxPods=%d", limit))
		}
	}
	// Half the profiles keep the zone classes' promise too (the fakes
	// but the class ones always do).
	zones := rng.Intn(2) == 0
	if rng.Intn(3) == 0 {
		odds := uint64(2 + rng.Intn(5))
		filters = append(filters, ft.ClassFilter{Seed: rng.Uint64(), Odds: odds, Zones: zones})
		parts = append(parts, fmt.Sprintf("classFilter=1/%d", odds))
	}
	var scores []framework.WeightedScore
	for _, s := range []framework.ScorePlugin{
		ft.ZoneSpreadScorer{}, ft.NodeSpreadScorer{}, ft.PodSpreadScorer{}, ft.LowestOrdinalScorer{}, ft.ZoneCounter{},
		ft.ClassScorer{Seed: rng.Uint64(), Zones: zones},
	} {
		if rng.Intn(3) == 0 {
			continue
		}
		w := int32(rng.Intn(11))
		scores = append(scores, framework.WeightedScore{Plugin: s, Weight: w})
		parts = append(parts, fmt.Sprintf("%s=%d", s.Name(), w))
	}
	rng.Shuffle(len(scores), func(i, j int) { scores[i], scores[j] = scores[j], scores[i] })
	if rng.Intn(2) == 0 {
		// One instance as filter and scorer: observed once per change.
		rec = &ft.Recorder{}
		filters = append(filters, rec)
		scores = append(scores, framework.WeightedScore{Plugin: rec, Weight: 1})
		parts = append(parts, "recorder")
	}
	var err error
	if grouped, err = framework.NewProfile(mode, filters, scores); err != nil {
		t.Fatalf("NewProfile: %v", err)
	}
	opaque := append(scores[:len(scores):len(scores)], framework.WeightedScore{Plugin: &ft.ScriptedScorer{PluginName: "Opaque"}, Weight: 0})
	if podByPod, err = framework.NewProfile(mode, filters, opaque); err != nil {
		t.Fatalf("NewProfile: %v", err)
	}
	if podByPod.Grouped() {
		t.Fatalf("a profile with a non-equivalence-aware plugin is grouped")
	}
	return grouped, podByPod, rec, strings.Join(parts, " ")
}

// TestGroupedMatchesExplained is the fast path's contract: evaluating one
// pod per class of equivalent pods decides exactly what evaluating every pod
// does, on clusters with every kind of oddity.
func TestGroupedMatchesExplained(t *testing.T) {
	const seeds = 1000
	var placed, early, groupedRuns, zoneRuns int
	reused := &framework.Decision{}
	for seed := int64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewSource(seed))
		sc := ft.RandomScenario(rng)
		for _, mode := range []framework.Mode{framework.Place, framework.Remove} {
			grouped, podByPod, rec, desc := randomProfile(t, rng, mode)
			if mode == framework.Place {
				if !grouped.Grouped() {
					t.Fatalf("seed %d: profile %s is not grouped", seed, desc)
				}
				groupedRuns++
				if grouped.ZoneGrouped() {
					zoneRuns++
				}
			}
			ex := &framework.Explanation{}
			explained := runOnce(t, grouped, sc.Cluster, sc, mode, ex, rec)
			fast := runOnce(t, grouped, sc.Cluster, sc, mode, nil, rec)
			// With the cluster's free-candidate and zone indexes the fast
			// path finds its representatives another way (one pod per zone
			// on the nodes the source does not use, when the profile is
			// zone-grouped); it must find the same.
			indexed := runOnce(t, grouped, sc.Cluster.Indexed(), sc, mode, nil, rec)
			undo := framework.SetZoneWalkMin(1) // every zone walked
			walked := runOnce(t, grouped, sc.Cluster.Indexed(), sc, mode, nil, rec)
			undo()
			slow := runOnce(t, podByPod, sc.Cluster, sc, mode, nil, rec)
			// A decision Reset after deciding for another scenario (the
			// last seed's, of another size) decides as a new one.
			if err := reused.Reset(mode, sc.Cluster.Indexed(), ft.NewVPod("ns", "src", 0), sc.Base); err != nil {
				t.Fatalf("Reset: %v", err)
			}
			reset := runOn(t, grouped, reused, sc, nil, rec)
			failed := false
			for _, other := range []struct {
				name string
				o    outcome
			}{{"grouped", fast}, {"grouped with index", indexed}, {"grouped, zones walked", walked}, {"pod by pod", slow}, {"reset", reset}} {
				if diff := cmp.Diff(explained, other.o); diff != "" {
					t.Errorf("seed %d, %s, profile %s, n=%d: %s run differs from explained (-explained +%s):\n%s",
						seed, mode, desc, sc.N, other.name, other.name, diff)
					failed = true
				}
			}
			if failed {
				var b strings.Builder
				_ = ex.WriteText(&b)
				t.Logf("explanation:\n%s", b.String())
				continue
			}
			if fast.Err != "" {
				t.Errorf("seed %d, %s: %s", seed, mode, fast.Err)
				continue
			}
			checkRun(t, fmt.Sprintf("seed %d, %s", seed, mode), sc, mode, fast)
			if mode == framework.Place {
				placed += int(fast.Result.Changed)
				if fast.Result.Changed < sc.N {
					early++
				}
			}
		}
	}
	// Guard against a generator that stopped producing interesting cases.
	if placed < seeds || early < seeds/10 || early > seeds*9/10 || zoneRuns < seeds/4 {
		t.Errorf("weak coverage: %d grouped runs (%d by zone) placed %d vreplicas, %d stopped early", groupedRuns, zoneRuns, placed, early)
	}
}

// checkRun checks what any correct run does, whichever the plugins: it
// changes exactly Result.Changed vreplicas, each on a pod that could take
// (or held) it, and says why when it stopped early.
func checkRun(t *testing.T, what string, sc ft.Scenario, mode framework.Mode, o outcome) {
	t.Helper()
	before := map[int32]int32{}
	for _, p := range sc.Base {
		ord, _ := vsched.OrdinalFromPodName(p.PodName)
		before[ord] += p.VReplicas
	}
	after := map[int32]int32{}
	var moved int32
	for _, p := range o.Placements {
		ord, _ := vsched.OrdinalFromPodName(p.PodName)
		after[ord] = p.VReplicas
		if p.VReplicas <= 0 {
			t.Errorf("%s: placement %+v holds nothing", what, p)
		}
	}
	for ord := range union(before, after) {
		delta := after[ord] - before[ord]
		switch mode {
		case framework.Place:
			if delta < 0 {
				t.Errorf("%s: placing removed from pod %d", what, ord)
			}
			if delta > 0 {
				info, ok := sc.Cluster.Pod(ord)
				if !ok || !info.Candidate {
					t.Errorf("%s: placed %d on non-candidate pod %d", what, delta, ord)
				}
				if free := sc.Cluster.Free(ord); delta > free {
					t.Errorf("%s: placed %d on pod %d with %d free", what, delta, ord, free)
				}
			}
			moved += delta
		case framework.Remove:
			if delta > 0 {
				t.Errorf("%s: removing added to pod %d", what, ord)
			}
			moved -= delta
		}
	}
	if moved != o.Result.Changed {
		t.Errorf("%s: placements changed by %d, Result.Changed = %d", what, moved, o.Result.Changed)
	}
	if (o.Result.Changed < sc.N) != (o.Result.Reason != "") {
		t.Errorf("%s: changed %d of %d with reason %q", what, o.Result.Changed, sc.N, o.Result.Reason)
	}
}

func union(a, b map[int32]int32) map[int32]bool {
	out := map[int32]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
