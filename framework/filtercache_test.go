package framework_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// levelZonesReach is LevelZones declaring the reach the test sets.
type levelZonesReach struct {
	LevelZones
	reach framework.Scope
}

func (l levelZonesReach) FilterReads() framework.Scope { return l.reach }

// undeclared is a filter that does not say what it reads.
type undeclared struct{ f framework.FilterPlugin }

func (u undeclared) Name() string { return u.f.Name() }
func (u undeclared) Filter(ctx context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	return u.f.Filter(ctx, d, ordinal)
}

// placeTwenty places 20 vreplicas on c with the plugins and returns the
// placements.
func placeTwenty(t *testing.T, c framework.Cluster, filters []framework.FilterPlugin, scores []framework.WeightedScore, ex *framework.Explanation) string {
	t.Helper()
	p, err := framework.NewProfile(framework.Place, filters, scores)
	if err != nil {
		t.Fatal(err)
	}
	d, err := framework.NewDecision(framework.Place, c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), d, 20, ex); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(d.Placements())
}

// zoneAFirst scores the pods of zone-a 100, the others 0, and says
// nothing of what it reads.
type zoneAFirst struct{}

func (zoneAFirst) Name() string { return "zoneAFirst" }
func (zoneAFirst) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	if _, zone, _ := d.PodDomains(ordinal); zone >= 0 && d.Cluster().ZoneName(zone) == "zone-a" {
		return framework.MaxScore, nil
	}
	return framework.MinScore, nil
}

// TestKeptVerdicts places 20 vreplicas on 3 zones with a filter that keeps
// the zones level and declares FilterInputs, alone and beside a kept
// score: the placements are those of filtering every candidate at every
// step (an explanation), with far fewer Filter calls; a filter declaring
// a scope the runtime does not know, or declaring nothing, is called for
// every candidate at every step. A declaration narrower than what the
// filter reads (the pod for its zone) is caught: the placements differ.
func TestKeptVerdicts(t *testing.T) {
	c := ft.NewCluster(4).Node("a0", "zone-a").Node("b0", "zone-b").Node("c0", "zone-c").
		Pods("a0", "b0", "c0", "a0", "b0", "c0", "a0", "b0", "c0")
	place := func(f func(calls *int) framework.FilterPlugin, score framework.ScorePlugin, ex *framework.Explanation) (string, int) {
		calls := 0
		var scores []framework.WeightedScore
		if score != nil {
			scores = []framework.WeightedScore{{Plugin: score, Weight: 1}}
		}
		got := placeTwenty(t, c, []framework.FilterPlugin{ft.CapacityFilter{}, f(&calls)}, scores, ex)
		return got, calls
	}
	declared := func(calls *int) framework.FilterPlugin { return LevelZones{Calls: calls} }
	for _, tc := range []struct {
		name  string
		f     func(calls *int) framework.FilterPlugin
		score framework.ScorePlugin
		most  int  // -1: as many as filtering every candidate
		wrong bool // the declaration is wrong: the placements must differ
	}{
		// A step filters again the pods of the zone just changed (3 of
		// 9), and every pod when the fewest any zone holds changed (every
		// third step): about 80 calls of 180.
		{"declared", declared, nil, 90, false},
		{"declared, beside a kept score", declared, EmptiestZone{}, 90, false},
		{"declared, beside a score not kept", declared, zoneAFirst{}, 90, false},
		{"pod reach, wrong", func(calls *int) framework.FilterPlugin {
			return levelZonesReach{LevelZones{Calls: calls}, framework.ScopePod}
		}, zoneAFirst{}, 90, true},
		{"unknown reach", func(calls *int) framework.FilterPlugin {
			return levelZonesReach{LevelZones{Calls: calls}, framework.Scope(9)}
		}, zoneAFirst{}, -1, false},
		{"undeclared", func(calls *int) framework.FilterPlugin { return undeclared{LevelZones{Calls: calls}} }, zoneAFirst{}, -1, false},
	} {
		want, every := place(tc.f, tc.score, &framework.Explanation{})
		got, calls := place(tc.f, tc.score, nil)
		t.Logf("%s: %d Filter calls, %d filtering every candidate", tc.name, calls, every)
		if diff := cmp.Diff(want, got); (diff != "") != tc.wrong {
			t.Errorf("%s: placements (-every candidate +kept), want them to differ %v:\n%s", tc.name, tc.wrong, diff)
		}
		if (tc.most < 0 && calls != every) || (tc.most >= 0 && calls > tc.most) {
			t.Errorf("%s: %d Filter calls, want at most %d (every candidate: %d)", tc.name, calls, tc.most, every)
		}
	}
}
