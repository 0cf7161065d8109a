package framework_test

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// EmptiestZone is a placing priority: a zone holding less of the source
// scores higher. Its score reads of a pod only its zone, and of the
// decision the source's count in that zone and the most any zone holds, so
// it declares framework.ScoreInputs: scope and reach ScopeZone, and the
// most as its summary.
type EmptiestZone struct{}

func (EmptiestZone) Name() string { return "EmptiestZone" }

// Score is 100 for a zone holding none, down to 0 for one holding the most.
func (EmptiestZone) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	most := d.ZoneStats().Max
	_, zone, _ := d.PodDomains(ordinal)
	if most <= 0 || zone < 0 {
		return framework.MaxScore, nil
	}
	return framework.MaxScore * int64(most-d.OnZone(zone)) / int64(most), nil
}

// ScoreReads implements framework.ScoreInputs.
func (EmptiestZone) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopeZone, framework.ScopeZone
}

// ScoreSummary implements framework.ScoreInputs: the one summary Score
// reads.
func (EmptiestZone) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	return framework.ScoreSummary{int64(d.ZoneStats().Max)}
}

// ExampleScoreInputs places 20 vreplicas, enough for the runtime to keep
// the plugin's scores from step to step: a step scores again only the
// zones whose count changed, or every zone when the most held changed. The
// placements are those of scoring every pod at every step: round the
// zones, each pod filled before the next opens.
func ExampleScoreInputs() {
	fits, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}}, []framework.WeightedScore{{Plugin: EmptiestZone{}, Weight: 1}})
	if err != nil {
		panic(err)
	}
	kept := placeOnTwoZones(fits, nil)
	fmt.Println(kept)
	// An explanation scores every candidate at every step.
	fmt.Println("as scoring every pod:", kept == placeOnTwoZones(fits, &framework.Explanation{}))
	// Output:
	// [{adapter-0 zone-a a0 5} {adapter-1 zone-b b0 5} {adapter-2 zone-a a0 5} {adapter-3 zone-b b0 5}]
	// as scoring every pod: true
}
