package plugins

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/availabilitynodepriority"
	"github.com/vsched/vsched/plugins/core/availabilityzonepriority"
	"github.com/vsched/vsched/plugins/core/evenpodspread"
	"github.com/vsched/vsched/plugins/core/evenzonespread"
	"github.com/vsched/vsched/plugins/core/inusepodpriority"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/internal/podlimit"
)

// TestScoreInputsHold checks, on random decisions (ft.RandomScenario,
// sometimes under a pod cap), the promise every in-tree ScoreInputs and
// FilterInputs plugin makes and the runtime keeps scores and verdicts by:
// within a decision, two moments with the same summary and the same state
// of the pods in the candidate's reach give the candidate the same score
// (verdict). A summary made too narrow (one that leaves out a value the
// score reads, as EvenPodSpread's node spread bound or EvenZoneSpread's
// "no zone counted") gives two scores under one key. It also checks that
// a SummaryScorer scores from its summary exactly as Score does, and a
// SummaryFilter passes what Filter passes (a wrong rejection there is
// masked by the reasons asked outside a Run: TestKeptStepOnState and the
// holder class tests see it).
func TestScoreInputsHold(t *testing.T) {
	ctx := context.Background()
	var scores []framework.ScorePlugin
	var filters []framework.FilterPlugin
	for _, skew := range []int32{1, 2, 3} {
		scores = append(scores,
			built(availabilityzonepriority.New(ctx, &availabilityzonepriority.Args{MaxSkew: &skew})),
			built(availabilitynodepriority.New(ctx, &availabilitynodepriority.Args{MaxSkew: &skew})),
			built(evenpodspread.New(ctx, &evenpodspread.Args{MaxSkew: &skew})))
		filters = append(filters,
			built(evenpodspread.New(ctx, &evenpodspread.Args{MaxSkew: &skew})),
			built(evenzonespread.New(ctx, &evenzonespread.Args{MaxSkew: &skew})))
	}
	scores = append(scores, inusepodpriority.New(), lowestordinalpriority.New())
	rng := rand.New(rand.NewSource(2101))
	for seed := range 200 {
		sc := ft.RandomScenario(rng)
		d, err := framework.NewDecision(framework.Place, sc.Cluster, nil, sc.Base)
		if err != nil {
			t.Fatal(err)
		}
		if rng.Intn(3) == 0 {
			podlimit.Set(d, 1+rng.Int31n(6))
		}
		seen := map[string]int64{}
		for step := range 30 {
			what := fmt.Sprintf("seed %d, step %d", seed, step)
			for i, pl := range scores {
				checkScoreInputs(t, what, i, pl, d, seen)
			}
			for i, f := range filters {
				checkFilterInputs(t, what, i, f, d, seen)
			}
			if !placeRandomly(t, rng, d) {
				break
			}
		}
	}
}

func built[P any](p P, err error) P {
	if err != nil {
		panic(err)
	}
	return p
}

// checkScoreInputs scores every candidate and records the score under
// its key: the plugin, its summary, the ordinal and its reach's state.
func checkScoreInputs(t *testing.T, what string, i int, pl framework.ScorePlugin, d *framework.Decision, seen map[string]int64) {
	t.Helper()
	in := pl.(framework.ScoreInputs)
	_, reach := in.ScoreReads()
	sum := in.ScoreSummary(d)
	for _, ord := range d.Cluster().Candidates() {
		got, st := pl.Score(context.Background(), d, ord)
		if !st.IsSuccess() {
			t.Fatalf("%s: %s: %v", what, pl.Name(), st.AsError())
		}
		if ss, ok := pl.(framework.SummaryScorer); ok {
			if fromSum, _ := ss.ScoreSummarized(context.Background(), d, ord, sum); fromSum != got {
				t.Fatalf("%s: %s, pod %d: ScoreSummarized %d, Score %d (summary %v)", what, pl.Name(), ord, fromSum, got, sum)
			}
		}
		expectSame(t, what, fmt.Sprintf("score %d %s %v pod %d %s", i, pl.Name(), sum, ord, reachState(d, ord, reach)), got, seen)
	}
}

// checkFilterInputs does for a filter's verdicts what checkScoreInputs
// does for scores.
func checkFilterInputs(t *testing.T, what string, i int, f framework.FilterPlugin, d *framework.Decision, seen map[string]int64) {
	t.Helper()
	in := f.(framework.FilterInputs)
	sum := in.FilterSummary(d)
	for _, ord := range d.Cluster().Candidates() {
		var pass int64
		if f.Filter(context.Background(), d, ord).IsSuccess() {
			pass = 1
		}
		if sf, ok := f.(framework.SummaryFilter); ok && sf.FilterSummarized(context.Background(), d, ord, sum).IsSuccess() != (pass == 1) {
			t.Fatalf("%s: %s, pod %d: FilterSummarized and Filter disagree (summary %v)", what, f.Name(), ord, sum)
		}
		expectSame(t, what, fmt.Sprintf("filter %d %s %v pod %d %s", i, f.Name(), sum, ord, reachState(d, ord, in.FilterReads())), pass, seen)
	}
}

func expectSame(t *testing.T, what, key string, got int64, seen map[string]int64) {
	t.Helper()
	if prev, ok := seen[key]; ok && prev != got {
		t.Fatalf("%s: %s: %d, earlier %d under the same summary and reach", what, key, got, prev)
	}
	seen[key] = got
}

// reachState is the source's count and the free capacity of every pod in
// the ordinal's reach (its pod, node or zone, -1 a domain of its own).
func reachState(d *framework.Decision, ord int32, reach framework.Scope) string {
	node, zone, _ := d.PodDomains(ord)
	s := ""
	for p := range d.Cluster().Replicas() + 4 {
		pn, pz, _ := d.PodDomains(p)
		in := p == ord
		switch reach {
		case framework.ScopeNode:
			in = pn == node
		case framework.ScopeZone:
			in = pz == zone
		}
		if in {
			s += fmt.Sprintf("%d:%d/%d ", p, d.OnPod(p), d.Free(p))
		}
	}
	return s
}

// placeRandomly places 1 to 3 vreplicas on pods a random scorer picks,
// false when none fits.
func placeRandomly(t *testing.T, rng *rand.Rand, d *framework.Decision) bool {
	t.Helper()
	scores := map[int32]int64{}
	for ord := range d.Cluster().Replicas() + 3 {
		scores[ord] = rng.Int63n(101)
	}
	p, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}},
		[]framework.WeightedScore{{Plugin: &ft.ScriptedScorer{Scores: scores}, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), d, 1+rng.Int31n(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Changed > 0
}
