package framework_test

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// SummedEmptiestZone is EmptiestZone (ExampleScoreInputs) scoring from
// its summary when the runtime keeps its scores: the most any zone holds
// is sum[0], not read again from the decision at every call. It counts
// the calls of each kind.
type SummedEmptiestZone struct {
	EmptiestZone
	calls *[2]int // Score, ScoreSummarized
}

func (p SummedEmptiestZone) Score(ctx context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	p.calls[0]++
	return p.EmptiestZone.Score(ctx, d, ordinal)
}

// ScoreSummarized implements framework.SummaryScorer: Score with the
// most held taken from the step's summary.
func (p SummedEmptiestZone) ScoreSummarized(_ context.Context, d *framework.Decision, ordinal int32, sum framework.ScoreSummary) (int64, *framework.Status) {
	p.calls[1]++
	most := sum[0]
	_, zone, _ := d.PodDomains(ordinal)
	if most <= 0 || zone < 0 {
		return framework.MaxScore, nil
	}
	return framework.MaxScore * (most - int64(d.OnZone(zone))) / most, nil
}

// ExampleSummaryScorer places 20 vreplicas: the runtime keeps the
// plugin's scores and, when one is out of date, asks ScoreSummarized with
// the step's summary; an explanation asks Score for every candidate. The
// placements are the same.
func ExampleSummaryScorer() {
	var calls [2]int
	pl := SummedEmptiestZone{calls: &calls}
	fits, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}}, []framework.WeightedScore{{Plugin: pl, Weight: 1}})
	if err != nil {
		panic(err)
	}
	place := func(ex *framework.Explanation) string {
		calls = [2]int{}
		return placeOnTwoZones(fits, ex)
	}
	kept := place(nil)
	fmt.Println(kept)
	fmt.Println("kept: Score called", calls[0] > 0, "ScoreSummarized called", calls[1] > 0)
	explained := place(&framework.Explanation{})
	fmt.Println("explained: Score called", calls[0] > 0, "ScoreSummarized called", calls[1] > 0)
	fmt.Println("the same placements:", kept == explained)
	// Output:
	// [{adapter-0 zone-a a0 5} {adapter-1 zone-b b0 5} {adapter-2 zone-a a0 5} {adapter-3 zone-b b0 5}]
	// kept: Score called false ScoreSummarized called true
	// explained: Score called true ScoreSummarized called false
	// the same placements: true
}

// placeOnTwoZones places 20 vreplicas with the profile on two zones of three
// pods of 5, and returns the placements.
func placeOnTwoZones(p *framework.Profile, ex *framework.Explanation) string {
	c := ft.NewCluster(5).Node("a0", "zone-a").Node("b0", "zone-b").
		Pods("a0", "b0", "a0", "b0", "a0", "b0")
	d, err := framework.NewDecision(framework.Place, c, nil, nil)
	if err != nil {
		panic(err)
	}
	if _, err := p.Run(context.Background(), d, 20, ex); err != nil {
		panic(err)
	}
	return fmt.Sprint(d.Placements())
}

// SummedLevelZones is LevelZones (ExampleFilterInputs) deciding from its
// summary when the runtime keeps its verdicts: the fewest any zone holds
// is sum[0]. Summarized counts those calls.
type SummedLevelZones struct {
	LevelZones
	Summarized *int
}

// FilterSummarized implements framework.SummaryFilter.
func (l SummedLevelZones) FilterSummarized(_ context.Context, d *framework.Decision, ordinal int32, sum framework.ScoreSummary) *framework.Status {
	*l.Summarized++
	if _, zone, _ := d.PodDomains(ordinal); zone < 0 || int64(d.OnZone(zone)) > sum[0] {
		return levelled
	}
	return nil
}

// ExampleSummaryFilter places 20 vreplicas keeping the zones level: a Run
// that keeps the filter's verdicts asks FilterSummarized, an explanation
// asks Filter. The placements are the same.
func ExampleSummaryFilter() {
	var filtered, summarized int
	fl := SummedLevelZones{LevelZones: LevelZones{Calls: &filtered}, Summarized: &summarized}
	p, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}, fl},
		[]framework.WeightedScore{{Plugin: EmptiestZone{}, Weight: 1}})
	if err != nil {
		panic(err)
	}
	kept := placeOnTwoZones(p, nil)
	fmt.Println("kept: Filter called", filtered > 0, "FilterSummarized called", summarized > 0)
	filtered, summarized = 0, 0
	explained := placeOnTwoZones(p, &framework.Explanation{})
	fmt.Println("explained: Filter called", filtered > 0, "FilterSummarized called", summarized > 0)
	fmt.Println("the same placements:", kept == explained)
	// Output:
	// kept: Filter called false FilterSummarized called true
	// explained: Filter called true FilterSummarized called false
	// the same placements: true
}
