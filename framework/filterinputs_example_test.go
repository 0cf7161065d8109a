package framework_test

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// LevelZones is a filter that keeps the zones level: a pod passes while
// its zone holds no more of the source than the emptiest zone. It declares
// what its verdict reads (framework.FilterInputs), and counts its calls in
// Calls when set.
type LevelZones struct{ Calls *int }

func (LevelZones) Name() string { return "LevelZones" }

var levelled = framework.NewStatus(framework.Unschedulable)

// Filter passes a pod whose zone holds the fewest vreplicas.
func (l LevelZones) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if l.Calls != nil {
		*l.Calls++
	}
	_, zone, _ := d.PodDomains(ordinal)
	if zone < 0 || d.OnZone(zone) > d.ZoneStats().Min {
		return levelled
	}
	return nil
}

// FilterReads implements framework.FilterInputs: of the decision's
// counts, the verdict reads the pod's zone's.
func (LevelZones) FilterReads() framework.Scope { return framework.ScopeZone }

// FilterSummary implements framework.FilterInputs: the one summary Filter
// reads.
func (LevelZones) FilterSummary(d *framework.Decision) framework.ScoreSummary {
	return framework.ScoreSummary{int64(d.ZoneStats().Min)}
}

// ExampleFilterInputs places 20 vreplicas, enough for the runtime to keep
// the filter's verdicts from step to step: a step filters again only the
// pods of the zone that changed, or every pod when the fewest any zone
// holds changed. The placements are those of filtering every pod at every
// step, with fewer Filter calls.
func ExampleFilterInputs() {
	c := ft.NewCluster(5).Node("a0", "zone-a").Node("b0", "zone-b").
		Pods("a0", "b0", "a0", "b0", "a0", "b0")
	place := func(ex *framework.Explanation) (string, int) {
		calls := 0
		p, err := framework.NewProfile(framework.Place,
			[]framework.FilterPlugin{ft.CapacityFilter{}, LevelZones{Calls: &calls}}, nil)
		if err != nil {
			panic(err)
		}
		d, err := framework.NewDecision(framework.Place, c, nil, nil)
		if err != nil {
			panic(err)
		}
		if _, err := p.Run(context.Background(), d, 20, ex); err != nil {
			panic(err)
		}
		return fmt.Sprint(d.Placements()), calls
	}
	kept, keptCalls := place(nil)
	fmt.Println(kept)
	// An explanation filters every candidate at every step.
	every, everyCalls := place(&framework.Explanation{})
	fmt.Println("as filtering every pod:", kept == every)
	fmt.Println("fewer Filter calls:", keptCalls < everyCalls)
	// Output:
	// [{adapter-0 zone-a a0 5} {adapter-1 zone-b b0 5} {adapter-2 zone-a a0 5} {adapter-3 zone-b b0 5}]
	// as filtering every pod: true
	// fewer Filter calls: true
}
