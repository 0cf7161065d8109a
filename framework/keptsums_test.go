package framework_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
)

// scopedScore is a kept score of the scope and reach the test sets: of the
// candidate it reads only what its scope allows (the pod's ordinal and
// free capacity, its node's index, its zone's), of the source's counts
// only those in its reach, and of the decision as a whole how many
// vreplicas it changed, divided by every (its summary; 0: nothing).
type scopedScore struct {
	name         string
	scope, reach framework.Scope
	every        int32
}

func (s scopedScore) Name() string { return s.name }

func (s scopedScore) Score(_ context.Context, d *framework.Decision, ord int32) (int64, *framework.Status) {
	node, zone, _ := d.PodDomains(ord)
	x := int64(zone+2) * 11
	if s.scope <= framework.ScopeNode {
		x += int64(node+2) * 5
	}
	if s.scope == framework.ScopePod {
		x += int64(ord)*7 + int64(d.Free(ord))*3 + int64(d.OnPod(ord))*19
	}
	switch s.reach {
	case framework.ScopeNode:
		x += int64(d.OnNode(node)) * 13
	case framework.ScopeZone:
		x += int64(d.OnZone(zone)) * 13
	}
	if s.every > 0 {
		x += int64(d.Changed()/s.every) * 17
	}
	return x % (framework.MaxScore + 1), nil
}

func (s scopedScore) ScoreReads() (scope, reach framework.Scope) { return s.scope, s.reach }

func (s scopedScore) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	if s.every == 0 {
		return framework.ScoreSummary{}
	}
	return framework.ScoreSummary{int64(d.Changed() / s.every)}
}

// undeclaredScore is a scopedScore that does not say what it reads.
type undeclaredScore struct{ s scopedScore }

func (u undeclaredScore) Name() string { return "undeclared" }

func (u undeclaredScore) Score(ctx context.Context, d *framework.Decision, ord int32) (int64, *framework.Status) {
	return u.s.Score(ctx, d, ord)
}

// everyFourth rejects a pod one step in four, so that the candidates of
// a Run skip steps and come back to kept scores older than the step
// before.
type everyFourth struct{}

func (everyFourth) Name() string { return "everyFourth" }

func (everyFourth) Filter(_ context.Context, d *framework.Decision, ord int32) *framework.Status {
	if (ord+d.Changed())%4 == 0 {
		return framework.NewStatus(framework.Unschedulable, "its fourth step")
	}
	return nil
}

// keptCheckProfiles is a profile of scopedScores of every scope and
// reach, placing and removing, and the in-tree policies' profiles.
func keptCheckProfiles(t *testing.T) map[string]*framework.Profile {
	t.Helper()
	scores := []framework.WeightedScore{
		{Plugin: scopedScore{"zone", framework.ScopeZone, framework.ScopeZone, 3}, Weight: 4},
		{Plugin: scopedScore{"nodeInZone", framework.ScopeNode, framework.ScopeZone, 0}, Weight: 2},
		{Plugin: scopedScore{"node", framework.ScopeNode, framework.ScopeNode, 5}, Weight: 3},
		{Plugin: scopedScore{"podInNode", framework.ScopePod, framework.ScopeNode, 2}, Weight: 1},
		{Plugin: scopedScore{"pod", framework.ScopePod, framework.ScopePod, 0}, Weight: 5},
	}
	out := map[string]*framework.Profile{}
	for _, mode := range []framework.Mode{framework.Place, framework.Remove} {
		out["scoped/"+mode.String()] = mustProfile(t, mode, scores)
	}
	// A score that is not kept is added at every step to the kept totals
	// (keptTotals, winner).
	mixed, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}, everyFourth{}},
		append(scores[:len(scores):len(scores)], framework.WeightedScore{Plugin: undeclaredScore{scopedScore{"podInZone", framework.ScopePod, framework.ScopeZone, 1}}, Weight: 3}))
	if err != nil {
		t.Fatal(err)
	}
	out["mixed/place"] = mixed
	for name, data := range map[string]map[string]string{
		"default": nil,
		"kafkaHA": {
			"predicates": `[{"Name":"PodFitsResources"},{"Name":"NoMaxResourceCount","Args":{"NumPartitions":100}}]`,
			"priorities": `[{"Name":"AvailabilityZonePriority","Weight":10,"Args":{"MaxSkew":2}},` +
				`{"Name":"LowestOrdinalPriority","Weight":2},{"Name":"EvenPodSpread","Weight":2,"Args":{"MaxSkew":2}}]`,
		},
	} {
		var cm *corev1.ConfigMap
		if data != nil {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultSchedulerConfigMapName}, Data: data}
		}
		ps, err := config.BuildProfilesFromConfigMaps(context.Background(), plugins.MustInTreeRegistry(), cm, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name+"/place"], out[name+"/remove"] = ps.Place, ps.Remove
	}
	return out
}

// TestKeptTotalsMatchScratch places and removes on random clusters with
// every step of a Run that keeps scores checked against scoring every
// candidate afresh (framework.CheckKeptSteps): the feasible candidates,
// each one's kept total (its pod, node and zone slots' sums, moved by the
// difference whenever one of their scores is scored again) and the
// winner (its Free kept per pod slot for the tie-breaks). The profiles
// keep scores of every scope and reach, with summaries that change
// every few steps or never, beside one that is not kept or alone, and
// the in-tree policies'.
func TestKeptTotalsMatchScratch(t *testing.T) {
	var diffs []string
	steps := 0
	defer framework.CheckKeptSteps(func(s string) { diffs = append(diffs, s) }, &steps)()
	profiles := keptCheckProfiles(t)
	names := []string{"scoped/place", "scoped/remove", "mixed/place", "default/place", "default/remove", "kafkaHA/place", "kafkaHA/remove"}
	rng := rand.New(rand.NewSource(2104))
	for i := range 150 {
		sc := ft.RandomScenario(rng)
		for _, name := range names {
			p := profiles[name]
			d, err := framework.NewDecision(p.Mode(), sc.Cluster, nil, sc.Base)
			if err != nil {
				t.Fatal(err)
			}
			n := 16 + rng.Int31n(40)
			if p.Mode() == framework.Remove {
				n = d.Total()
			}
			if _, err := p.Run(context.Background(), d, n, nil); err != nil {
				t.Fatalf("%s, scenario %d: %v", name, i, err)
			}
			if len(diffs) > 0 {
				t.Fatalf("%s, scenario %d (%d to change):\n%s", name, i, n, fmt.Sprintln(diffs[:min(len(diffs), 5)]))
			}
		}
	}
	// Most scenarios have room for a few vreplicas only, and a Run
	// under 16 keeps nothing: the check must still have seen many steps.
	t.Logf("%d kept steps checked", steps)
	if steps < 3000 {
		t.Errorf("%d kept steps checked, want at least 3,000", steps)
	}
}
