package framework_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// countedZone is EmptiestZone with its Score calls counted and the scopes
// it declares set by the test.
type countedZone struct {
	EmptiestZone
	scope, reach framework.Scope
	calls        *int
}

func (z countedZone) Score(ctx context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	*z.calls++
	return z.EmptiestZone.Score(ctx, d, ordinal)
}

func (z countedZone) ScoreReads() (scope, reach framework.Scope) { return z.scope, z.reach }

// TestKeptScores places 20 vreplicas on 3 zones with a zone priority that
// declares ScoreInputs: the placements are those of scoring every
// candidate (an explanation), with far fewer Score calls; a scope the
// runtime does not know is scored at every step, as a plugin that
// declares nothing.
func TestKeptScores(t *testing.T) {
	c := ft.NewCluster(4).Node("a0", "zone-a").Node("b0", "zone-b").Node("c0", "zone-c").
		Pods("a0", "b0", "c0", "a0", "b0", "c0", "a0", "b0", "c0")
	place := func(scope, reach framework.Scope, ex *framework.Explanation) (string, int) {
		calls := 0
		got := placeTwenty(t, c, []framework.FilterPlugin{ft.CapacityFilter{}},
			[]framework.WeightedScore{{Plugin: countedZone{scope: scope, reach: reach, calls: &calls}, Weight: 1}}, ex)
		return got, calls
	}
	want, every := place(framework.ScopeZone, framework.ScopeZone, &framework.Explanation{})
	for _, tc := range []struct {
		name         string
		scope, reach framework.Scope
		most         int
	}{
		// Per zone: one score per zone, again when the most any zone
		// holds (the summary) changed, every third step, or the zone
		// did (36 of 153).
		{"zone", framework.ScopeZone, framework.ScopeZone, 40},
		// Per pod, reach the zone: a candidate is scored again when its
		// zone or the summary changed (92).
		{"pod", framework.ScopePod, framework.ScopeZone, 100},
		// Unknown: every candidate at every step.
		{"unknown", framework.Scope(9), framework.ScopeZone, every},
	} {
		got, calls := place(tc.scope, tc.reach, nil)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: placements (-every candidate +kept):\n%s", tc.name, diff)
		}
		if calls > tc.most || (tc.name == "unknown" && calls != every) {
			t.Errorf("%s: %d Score calls, want at most %d (every candidate: %d)", tc.name, calls, tc.most, every)
		}
	}
}
