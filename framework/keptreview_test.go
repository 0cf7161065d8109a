package framework_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// The review of the kept step by scope (issue 21): the cases where its
// totals or winner could differ from scoring every candidate afresh that
// TestKeptTotalsMatchScratch does not reach.

// coarseScore is a scopedScore divided by div, so that most candidates tie
// and the winner is the tie-breaks' (the fullest pod, then the lowest
// ordinal; removing, the highest ordinal).
type coarseScore struct {
	s   scopedScore
	div int64
}

func (c coarseScore) Name() string { return c.s.name }

func (c coarseScore) Score(ctx context.Context, d *framework.Decision, ord int32) (int64, *framework.Status) {
	sc, st := c.s.Score(ctx, d, ord)
	return sc / c.div, st
}

func (c coarseScore) ScoreReads() (scope, reach framework.Scope) { return c.s.ScoreReads() }

func (c coarseScore) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	return c.s.ScoreSummary(d)
}

// failingScore is a kept pod score that fails once the decision has
// changed at vreplicas, for the odd ordinals: the Run stops midway
// through a step, some slots' sums moved and others not.
type failingScore struct {
	scopedScore
	at int32
}

func (f failingScore) Score(ctx context.Context, d *framework.Decision, ord int32) (int64, *framework.Status) {
	if d.Changed() >= f.at && ord%2 == 1 {
		return 0, framework.NewStatus(framework.Error, "failing on purpose")
	}
	return f.scopedScore.Score(ctx, d, ord)
}

// runChecked runs the profile on the scenario with every kept step checked
// against scoring every candidate afresh (CheckKeptSteps must be on) and
// fails the test on the first difference.
func runChecked(t *testing.T, name string, p *framework.Profile, sc ft.Scenario, n int32, diffs *[]string) {
	t.Helper()
	d, err := framework.NewDecision(p.Mode(), sc.Cluster, nil, sc.Base)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode() == framework.Remove {
		n = d.Total()
	}
	if _, err := p.Run(context.Background(), d, n, nil); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(*diffs) > 0 {
		t.Fatalf("%s (%d to change):\n%s", name, n, strings.Join((*diffs)[:min(len(*diffs), 5)], "\n"))
	}
}

// mustProfile is a profile of the scores, placing behind the capacity
// filter and everyFourth, removing with no filter.
func mustProfile(t *testing.T, mode framework.Mode, scores []framework.WeightedScore) *framework.Profile {
	t.Helper()
	var filters []framework.FilterPlugin
	if mode == framework.Place {
		filters = []framework.FilterPlugin{ft.CapacityFilter{}, everyFourth{}}
	}
	p, err := framework.NewProfile(mode, filters, scores)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKeptWinnerTiesMatchScratch checks the kept winner where nearly
// every candidate ties: the winner is then the one with the least Free
// (kept per pod slot and refreshed when a step changes the pod) and the
// lowest ordinal, or removing the highest ordinal. A score of weight 0
// that fails if called sits beside the kept ones: a Run must neither
// keep it nor score it.
func TestKeptWinnerTiesMatchScratch(t *testing.T) {
	var diffs []string
	steps := 0
	defer framework.CheckKeptSteps(func(s string) { diffs = append(diffs, s) }, &steps)()
	scores := []framework.WeightedScore{
		{Plugin: coarseScore{scopedScore{"zone", framework.ScopeZone, framework.ScopeZone, 3}, 60}, Weight: 4},
		{Plugin: coarseScore{scopedScore{"node", framework.ScopeNode, framework.ScopeNode, 0}, 70}, Weight: 2},
		{Plugin: coarseScore{scopedScore{"pod", framework.ScopePod, framework.ScopePod, 2}, 90}, Weight: 1},
		{Plugin: failingScore{scopedScore{"weightless", framework.ScopePod, framework.ScopePod, 0}, 0}, Weight: 0},
	}
	profiles := map[string]*framework.Profile{
		"coarse/place":  mustProfile(t, framework.Place, scores),
		"coarse/remove": mustProfile(t, framework.Remove, scores),
		// Every score the same: the tie-breaks alone pick.
		"flat/place": mustProfile(t, framework.Place, []framework.WeightedScore{
			{Plugin: coarseScore{scopedScore{"zone", framework.ScopeZone, framework.ScopeZone, 0}, 1000}, Weight: 10},
		}),
	}
	rng := rand.New(rand.NewSource(2111))
	for i := range 150 {
		sc := ft.RandomScenario(rng)
		for _, name := range []string{"coarse/place", "coarse/remove", "flat/place"} {
			runChecked(t, fmt.Sprintf("%s, scenario %d", name, i), profiles[name], sc, 16+rng.Int31n(40), &diffs)
		}
	}
	t.Logf("%d kept steps checked", steps)
	if steps < 3000 {
		t.Errorf("%d kept steps checked, want at least 3,000", steps)
	}
}

// TestKeptStepBeyondMaxKept runs profiles of 64 and 65 scores that say
// what they read: a Run keeps 64 at most (a mask's bits), scoring the
// 65th at every step beside the kept totals. Every weight is the bound,
// so the sums are at their largest.
func TestKeptStepBeyondMaxKept(t *testing.T) {
	var diffs []string
	steps := 0
	defer framework.CheckKeptSteps(func(s string) { diffs = append(diffs, s) }, &steps)()
	many := func(n int) []framework.WeightedScore {
		var out []framework.WeightedScore
		for i := range n {
			scope := framework.Scope(i % 3)
			reach := max(scope, framework.Scope(i/3%3))
			out = append(out, framework.WeightedScore{
				Plugin: scopedScore{fmt.Sprintf("s%d", i), scope, reach, int32(i % 5)},
				Weight: framework.MaxWeight - int32(i%2),
			})
		}
		return out
	}
	names := []string{"64/place", "65/place", "65/remove"}
	profiles := map[string]*framework.Profile{
		"64/place":  mustProfile(t, framework.Place, many(64)),
		"65/place":  mustProfile(t, framework.Place, many(65)),
		"65/remove": mustProfile(t, framework.Remove, many(65)),
	}
	rng := rand.New(rand.NewSource(2112))
	for i := range 40 {
		sc := ft.RandomScenario(rng)
		for _, name := range names {
			runChecked(t, fmt.Sprintf("%s, scenario %d", name, i), profiles[name], sc, 16+rng.Int31n(40), &diffs)
		}
	}
	if steps < 500 {
		t.Errorf("%d kept steps checked, want at least 500", steps)
	}
}

// TestKeptStepAfterFailedRun alternates Runs that a kept score's error
// stops midway through a step (some slots' sums moved, others not) with
// Runs of profiles of other shapes, so that the pooled cache a Run gets
// back was left by a failed one: every kept step of the next must still
// match scoring every candidate afresh.
func TestKeptStepAfterFailedRun(t *testing.T) {
	var diffs []string
	steps := 0
	defer framework.CheckKeptSteps(func(s string) { diffs = append(diffs, s) }, &steps)()
	failing := mustProfile(t, framework.Place, []framework.WeightedScore{
		{Plugin: scopedScore{"zone", framework.ScopeZone, framework.ScopeZone, 0}, Weight: 7},
		{Plugin: scopedScore{"node", framework.ScopeNode, framework.ScopeNode, 0}, Weight: 9},
		{Plugin: scopedScore{"pod", framework.ScopePod, framework.ScopePod, 0}, Weight: 8},
		{Plugin: failingScore{scopedScore{"failing", framework.ScopePod, framework.ScopePod, 0}, 12}, Weight: 3},
	})
	profiles := keptCheckProfiles(t)
	names := []string{"scoped/place", "scoped/remove", "mixed/place", "default/place"}
	rng := rand.New(rand.NewSource(2113))
	failed := 0
	for i := range 150 {
		sc := ft.RandomScenario(rng)
		for _, name := range names {
			d, err := framework.NewDecision(framework.Place, sc.Cluster, nil, sc.Base)
			if err != nil {
				t.Fatal(err)
			}
			diffs = diffs[:0]
			if _, err := failing.Run(context.Background(), d, 40, nil); err != nil {
				failed++
			}
			diffs = diffs[:0] // the failed Run's steps are not under test
			runChecked(t, fmt.Sprintf("%s after a failed Run, scenario %d", name, i), profiles[name], sc, 16+rng.Int31n(40), &diffs)
		}
	}
	if failed < 100 {
		t.Errorf("%d Runs failed midway, want at least 100", failed)
	}
}

// TestKeptStepConcurrentRuns runs Runs that keep scores on several
// goroutines at once (the pooled caches, the profiles shared) and checks
// each one's placements against the same Run explained, which keeps
// nothing.
func TestKeptStepConcurrentRuns(t *testing.T) {
	profiles := keptCheckProfiles(t)
	names := []string{"scoped/place", "scoped/remove", "mixed/place", "default/place", "kafkaHA/remove"}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(2114 + g)))
			for i := range 40 {
				sc := ft.RandomScenario(rng)
				for _, name := range names {
					if err := keptMatchesExplained(profiles[name], sc, 16+rng.Int31n(40)); err != nil {
						errs <- fmt.Errorf("goroutine %d, %s, scenario %d: %w", g, name, i, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// keptMatchesExplained runs p on the scenario twice, kept and explained,
// and returns their difference.
func keptMatchesExplained(p *framework.Profile, sc ft.Scenario, n int32) error {
	var got [2]string
	for i, ex := range []*framework.Explanation{nil, {}} {
		d, err := framework.NewDecision(p.Mode(), sc.Cluster, nil, sc.Base)
		if err != nil {
			return err
		}
		if p.Mode() == framework.Remove {
			n = d.Total()
		}
		res, err := p.Run(context.Background(), d, n, ex)
		if err != nil {
			return err
		}
		got[i] = fmt.Sprint(res.Changed, d.Placements())
	}
	if diff := cmp.Diff(got[1], got[0]); diff != "" {
		return errors.New("kept Run differs from the explained one (-explained +kept):\n" + diff)
	}
	return nil
}

// TestKeptStepCostedMatchScratch checks the kept steps of the default
// policy's costed variant (the cost classes' candidates, a Run that keeps
// scores at any size) on clusters whose pods use memory and whose source
// has a cost, against scoring the same candidates afresh.
func TestKeptStepCostedMatchScratch(t *testing.T) {
	var diffs []string
	steps := 0
	defer framework.CheckKeptSteps(func(s string) { diffs = append(diffs, s) }, &steps)()
	costed := keptCheckProfiles(t)["default/place"].Costed()
	if costed == nil {
		t.Fatal("the default policy has no costed variant")
	}
	rng := rand.New(rand.NewSource(2115))
	for i := range 300 {
		sc := ft.RandomScenario(rng)
		cc := ft.WithResources(sc.Cluster, ft.Resources("memory", "1000"))
		for ord := range int32(40) {
			cc.UseResources(ord, ft.Resources("memory", fmt.Sprint([]int{0, 100, 300}[rng.Intn(3)])))
		}
		src := ft.NewVPod("ns", "src", 0, sc.Base...)
		cc.Cost(src.Key, ft.Resources("memory", fmt.Sprint([]int{50, 100, 250}[rng.Intn(3)])))
		d, err := framework.NewDecision(framework.Place, cc, src, sc.Base)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := costed.Run(context.Background(), d, 1+rng.Int31n(40), nil); err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		if len(diffs) > 0 {
			t.Fatalf("scenario %d:\n%s", i, strings.Join(diffs[:min(len(diffs), 5)], "\n"))
		}
	}
	t.Logf("%d kept steps checked", steps)
	if steps < 1000 {
		t.Errorf("%d kept steps checked, want at least 1,000", steps)
	}
}

// flaggedScore is a scopedScore that also reads whether the pod is a
// candidate, as a node or zone scope allows: the candidates of a node
// (zone) and its other pods have slots of their own.
type flaggedScore struct{ scopedScore }

func (f flaggedScore) Score(ctx context.Context, d *framework.Decision, ord int32) (int64, *framework.Status) {
	sc, st := f.scopedScore.Score(ctx, d, ord)
	if d.Cluster().IsCandidate(ord) {
		sc = (sc + 50) % (framework.MaxScore + 1)
	}
	return sc, st
}

// TestKeptSlotsKeepTheCandidateFlag removes from random clusters, where
// the source's holders mix candidates with drained, removed and cordoned
// pods on the same nodes and zones, with node and zone scores that read
// the candidate flag, each kept step checked against scoring afresh.
func TestKeptSlotsKeepTheCandidateFlag(t *testing.T) {
	var diffs []string
	steps := 0
	defer framework.CheckKeptSteps(func(s string) { diffs = append(diffs, s) }, &steps)()
	p := mustProfile(t, framework.Remove, []framework.WeightedScore{
		{Plugin: flaggedScore{scopedScore{"zone", framework.ScopeZone, framework.ScopeZone, 3}}, Weight: 4},
		{Plugin: flaggedScore{scopedScore{"node", framework.ScopeNode, framework.ScopeZone, 0}}, Weight: 3},
		{Plugin: scopedScore{"pod", framework.ScopePod, framework.ScopePod, 0}, Weight: 1},
	})
	rng := rand.New(rand.NewSource(2116))
	for i := range 300 {
		runChecked(t, fmt.Sprintf("scenario %d", i), p, ft.RandomScenario(rng), 0, &diffs)
	}
	if steps < 1000 {
		t.Errorf("%d kept steps checked, want at least 1,000", steps)
	}
}
