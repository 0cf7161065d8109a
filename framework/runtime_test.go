package framework_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// fourPods is capacity 4, pods 0 and 2 on n0 (zone a), 1 and 3 on n1
// (zone b), all empty.
func fourPods() *ft.Cluster {
	return ft.NewCluster(4).Node("n0", "a").Node("n1", "b").Pods("n0", "n1", "n0", "n1")
}

func newProfile(t *testing.T, mode framework.Mode, filters []framework.FilterPlugin, scores ...framework.WeightedScore) *framework.Profile {
	t.Helper()
	p, err := framework.NewProfile(mode, filters, scores)
	if err != nil {
		t.Fatalf("NewProfile: %v", err)
	}
	return p
}

func capacityOnly() []framework.FilterPlugin { return []framework.FilterPlugin{ft.CapacityFilter{}} }

func ws(p framework.ScorePlugin, w int32) framework.WeightedScore {
	return framework.WeightedScore{Plugin: p, Weight: w}
}

// run runs p on a fresh decision over c from base, with or without an
// explanation, and returns what it did.
func run(t *testing.T, p *framework.Profile, c framework.Cluster, base []vsched.Placement, n int32, ex *framework.Explanation) (framework.Result, []vsched.Placement, error) {
	t.Helper()
	d, err := framework.NewDecision(p.Mode(), c, ft.NewVPod("ns", "src", n), base)
	if err != nil {
		t.Fatalf("NewDecision: %v", err)
	}
	res, err := p.Run(context.Background(), d, n, ex)
	return res, d.Placements(), err
}

// runBoth runs with and without an explanation and fails the test when they
// disagree: an explanation must never change a decision.
func runBoth(t *testing.T, p *framework.Profile, c framework.Cluster, base []vsched.Placement, n int32) (framework.Result, []vsched.Placement, error, *framework.Explanation) {
	t.Helper()
	res, ps, err := run(t, p, c, base, n, nil)
	ex := &framework.Explanation{}
	exRes, exPs, exErr := run(t, p, c, base, n, ex)
	if diff := cmp.Diff(res, exRes); diff != "" {
		t.Errorf("Result differs with an explanation (-without +with):\n%s", diff)
	}
	if diff := cmp.Diff(ps, exPs); diff != "" {
		t.Errorf("placements differ with an explanation (-without +with):\n%s", diff)
	}
	if errText(err) != errText(exErr) {
		t.Errorf("error differs with an explanation: %v vs %v", err, exErr)
	}
	return res, ps, err, ex
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func pl(node, zone string, ord, n int32) vsched.Placement {
	p := ft.P(ord, n)
	p.NodeName, p.ZoneName = node, zone
	return p
}

func TestRunTies(t *testing.T) {
	tests := []struct {
		name    string
		profile *framework.Profile
		mode    framework.Mode
		base    []vsched.Placement
		n       int32
		want    []vsched.Placement
	}{
		{
			name:    "placing, pod by pod: lowest ordinal",
			profile: newProfile(t, framework.Place, capacityOnly(), ws(&ft.ScriptedScorer{Default: 50}, 1)),
			n:       1,
			want:    []vsched.Placement{pl("n0", "a", 0, 1)},
		},
		{
			name:    "placing, grouped: lowest ordinal",
			profile: newProfile(t, framework.Place, capacityOnly(), ws(ft.ZoneSpreadScorer{}, 1)),
			n:       1,
			want:    []vsched.Placement{pl("n0", "a", 0, 1)},
		},
		{
			// Pod spread: once pod 0 holds 1, adding there makes skew 2
			// (score 50) and anywhere else skew 1 (75): each next
			// vreplica goes to the lowest empty pod.
			name:    "placing, grouped, spreading",
			profile: newProfile(t, framework.Place, capacityOnly(), ws(ft.PodSpreadScorer{}, 1)),
			n:       4,
			want:    []vsched.Placement{pl("n0", "a", 0, 1), pl("n1", "b", 1, 1), pl("n0", "a", 2, 1), pl("n1", "b", 3, 1)},
		},
		{
			name:    "no score plugins: lowest ordinal until full",
			profile: newProfile(t, framework.Place, capacityOnly()),
			n:       6,
			want:    []vsched.Placement{pl("n0", "a", 0, 4), pl("n1", "b", 1, 2)},
		},
		{
			name:    "removing: highest ordinal",
			profile: newProfile(t, framework.Remove, nil, ws(&ft.ScriptedScorer{Default: 50}, 1)),
			mode:    framework.Remove,
			base:    []vsched.Placement{ft.P(0, 1), ft.P(2, 1), ft.P(3, 1)},
			n:       1,
			want:    []vsched.Placement{pl("n0", "a", 0, 1), pl("n0", "a", 2, 1)},
		},
		{
			name:    "removing everything",
			profile: newProfile(t, framework.Remove, nil),
			mode:    framework.Remove,
			base:    []vsched.Placement{ft.P(0, 1), ft.P(3, 2)},
			n:       3,
			want:    []vsched.Placement{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fourPods().UsePlacements(tt.base)
			res, ps, err, _ := runBoth(t, tt.profile, c, tt.base, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if res != (framework.Result{Changed: tt.n}) {
				t.Errorf("Result = %+v", res)
			}
			if diff := cmp.Diff(tt.want, ps, cmp.Comparer(func(a, b []vsched.Placement) bool {
				return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
			})); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}

// totals returns each candidate's total and feasibility in the first step.
func firstStep(t *testing.T, ex *framework.Explanation) map[string]int64 {
	t.Helper()
	if len(ex.Steps) == 0 {
		t.Fatal("no steps explained")
	}
	out := map[string]int64{}
	for _, c := range ex.Steps[0].Candidates {
		if c.Feasible {
			out[c.Pod] = c.Total
		}
	}
	return out
}

func TestRunWeights(t *testing.T) {
	a := &ft.ScriptedScorer{PluginName: "A", Scores: map[int32]int64{0: 10, 1: 40, 2: 30, 3: 0}}
	b := &ft.ScriptedScorer{PluginName: "B", Scores: map[int32]int64{0: 50, 1: 10, 2: 30, 3: 0}}
	tests := []struct {
		name       string
		wa, wb     int32
		wantTotals map[string]int64
		wantWinner string
	}{
		{
			name: "A x2, B x3",
			wa:   2, wb: 3,
			// pod 0: 2*10 + 3*50 = 170; pod 1: 2*40 + 3*10 = 110;
			// pod 2: 2*30 + 3*30 = 150; pod 3: 0.
			wantTotals: map[string]int64{"adapter-0": 170, "adapter-1": 110, "adapter-2": 150, "adapter-3": 0},
			wantWinner: "adapter-0",
		},
		{
			name: "A x2, B x1: a tie",
			wa:   2, wb: 1,
			// pod 0: 20 + 50 = 70; pod 1: 80 + 10 = 90; pod 2: 60 + 30 =
			// 90: pods 1 and 2 tie, the lower ordinal wins.
			wantTotals: map[string]int64{"adapter-0": 70, "adapter-1": 90, "adapter-2": 90, "adapter-3": 0},
			wantWinner: "adapter-1",
		},
		{
			name: "A x10, B x0: B is shown but does not count",
			wa:   10, wb: 0,
			// pod 0: 100 + 0*50; pod 1: 400; pod 2: 300.
			wantTotals: map[string]int64{"adapter-0": 100, "adapter-1": 400, "adapter-2": 300, "adapter-3": 0},
			wantWinner: "adapter-1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProfile(t, framework.Place, capacityOnly(), ws(a, tt.wa), ws(b, tt.wb))
			_, ps, err, ex := runBoth(t, p, fourPods(), nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantTotals, firstStep(t, ex)); diff != "" {
				t.Errorf("totals (-want +got):\n%s", diff)
			}
			if len(ps) != 1 || ps[0].PodName != tt.wantWinner || ex.Steps[0].WinnerPod != tt.wantWinner {
				t.Errorf("placed %v, explained winner %q, want %s", ps, ex.Steps[0].WinnerPod, tt.wantWinner)
			}
			// Every feasible pod lists both plugins, weight 0 included.
			for _, c := range ex.Steps[0].Candidates {
				want := []framework.PluginScore{
					{Plugin: "A", Score: a.Scores[c.Ordinal], Weight: tt.wa, Weighted: a.Scores[c.Ordinal] * int64(tt.wa)},
					{Plugin: "B", Score: b.Scores[c.Ordinal], Weight: tt.wb, Weighted: b.Scores[c.Ordinal] * int64(tt.wb)},
				}
				if diff := cmp.Diff(want, c.Scores); diff != "" {
					t.Errorf("%s scores (-want +got):\n%s", c.Pod, diff)
				}
			}
		})
	}
}

// TestRunUncountedFailures: a weight-0 plugin that fails cannot change the
// decision, so neither may its failure, explained or not.
func TestRunUncountedFailures(t *testing.T) {
	counted := &ft.ScriptedScorer{PluginName: "Counted", Scores: map[int32]int64{2: 90}}
	outOfRange := &ft.ScriptedScorer{PluginName: "OutOfRange", Scores: map[int32]int64{1: 150}, Default: 5}
	failing := &ft.FailingPlugin{At: ft.AtScore}
	normalizer := &ft.NormalizingScorer{Fail: true}
	p := newProfile(t, framework.Place, capacityOnly(), ws(counted, 1), ws(outOfRange, 0), ws(failing, 0), ws(normalizer, 0))
	res, ps, err, ex := runBoth(t, p, fourPods(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != 1 || ps[0].PodName != "adapter-2" {
		t.Errorf("Run = %+v, %v", res, ps)
	}
	var pod1 []framework.PluginScore
	for _, c := range ex.Steps[0].Candidates {
		if c.Ordinal == 1 {
			pod1 = c.Scores
		}
	}
	want := []framework.PluginScore{
		{Plugin: "Counted", Weight: 1},
		{Plugin: "OutOfRange", Error: "score 150 is outside [0, 100]"},
		{Plugin: ft.FailingName, Error: "Error: fake plugin failure"},
		{Plugin: ft.NormalizingName, Error: "NormalizeScores: Error: fake plugin failure"},
	}
	if diff := cmp.Diff(want, pod1); diff != "" {
		t.Errorf("pod 1 scores (-want +got):\n%s", diff)
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name       string
		filters    []framework.FilterPlugin
		scores     []framework.WeightedScore
		wantErr    string
		wantIs     error
		wantPlugin string // the plugin StatusFromError names; "" when no status
	}{
		{
			name:    "score above MaxScore",
			scores:  []framework.WeightedScore{ws(&ft.ScriptedScorer{Scores: map[int32]int64{1: 101}}, 1)},
			wantErr: "ns/src: pod ordinal 1: plugin FakeScripted returned score 101, outside [0, 100]",
		},
		{
			name:    "score below MinScore",
			scores:  []framework.WeightedScore{ws(&ft.ScriptedScorer{Default: -1}, 3)},
			wantErr: "ns/src: pod ordinal 0: plugin FakeScripted returned score -1, outside [0, 100]",
		},
		{
			name:       "filter error",
			filters:    []framework.FilterPlugin{&ft.FailingPlugin{At: ft.AtFilter}},
			wantErr:    "ns/src: pod ordinal 0: plugin FakeFailing: Error: fake plugin failure",
			wantIs:     ft.ErrFake,
			wantPlugin: ft.FailingName,
		},
		{
			name:       "filter returning Skip",
			filters:    []framework.FilterPlugin{&ft.FailingPlugin{At: ft.AtFilter, Code: framework.Skip}},
			wantErr:    "ns/src: pod ordinal 0: plugin FakeFailing: Skip: fake filter status",
			wantPlugin: ft.FailingName,
		},
		{
			name:       "score error",
			scores:     []framework.WeightedScore{ws(&ft.FailingPlugin{PluginName: "Broken", At: ft.AtScore}, 1)},
			wantErr:    "ns/src: pod ordinal 0: plugin Broken: Error: fake plugin failure",
			wantIs:     ft.ErrFake,
			wantPlugin: "Broken",
		},
		{
			name:       "score plugin rejecting",
			scores:     []framework.WeightedScore{ws(&ft.FailingPlugin{At: ft.AtScore, Code: framework.Unschedulable}, 1)},
			wantErr:    "ns/src: pod ordinal 0: plugin FakeFailing: Unschedulable: fake score status",
			wantPlugin: ft.FailingName,
		},
		{
			name:       "prepare error",
			filters:    []framework.FilterPlugin{&ft.FailingPlugin{At: ft.AtPrepare, Err: context.DeadlineExceeded}},
			wantErr:    "plugin FakeFailing: Error: context deadline exceeded",
			wantIs:     context.DeadlineExceeded,
			wantPlugin: ft.FailingName,
		},
		{
			name:       "prepare rejecting",
			scores:     []framework.WeightedScore{ws(&ft.FailingPlugin{At: ft.AtPrepare, Code: framework.UnschedulableAndUnresolvable}, 1)},
			wantErr:    "plugin FakeFailing: UnschedulableAndUnresolvable: fake prepare status",
			wantPlugin: ft.FailingName,
		},
		{
			name:       "normalizer error",
			scores:     []framework.WeightedScore{ws(&ft.NormalizingScorer{Fail: true}, 1)},
			wantErr:    "ns/src: plugin FakeNormalizing: Error: fake plugin failure",
			wantIs:     ft.ErrFake,
			wantPlugin: ft.NormalizingName,
		},
		{
			// Raw -10 against a top of 5: -10*100/5 = -200.
			name:    "normalized out of range",
			scores:  []framework.WeightedScore{ws(&ft.NormalizingScorer{Raw: map[int32]int64{0: -10, 1: 5}}, 1)},
			wantErr: "ns/src: pod ordinal 0: plugin FakeNormalizing returned score -200, outside [0, 100]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProfile(t, framework.Place, append(capacityOnly(), tt.filters...), tt.scores...)
			res, _, err, _ := runBoth(t, p, fourPods(), nil, 2)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Run error = %v, want %q", err, tt.wantErr)
			}
			if res.Changed != 0 {
				t.Errorf("Changed = %d before the error", res.Changed)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
			st, ok := framework.StatusFromError(err)
			if got := st.Plugin(); ok != (tt.wantPlugin != "") || got != tt.wantPlugin {
				t.Errorf("StatusFromError = %v (%v), want plugin %q", st, ok, tt.wantPlugin)
			}
		})
	}
}

// failAfter scores 0 until the decision has made `after` changes, then fails.
type failAfter struct{ after int32 }

func (failAfter) Name() string { return "FailAfter" }
func (f failAfter) Score(_ context.Context, d *framework.Decision, _ int32) (int64, *framework.Status) {
	if d.Changed() >= f.after {
		return 0, framework.NewStatus(framework.Error, "too late")
	}
	return 0, nil
}

// TestRunErrorMidway: changes made before an error stay in the decision,
// and the Result counts them; callers drop the decision.
func TestRunErrorMidway(t *testing.T) {
	p := newProfile(t, framework.Place, capacityOnly(), ws(failAfter{after: 2}, 1))
	d, err := framework.NewDecision(framework.Place, fourPods(), ft.NewVPod("ns", "src", 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), d, 5, nil)
	if err == nil || err.Error() != "ns/src: pod ordinal 0: plugin FailAfter: Error: too late" {
		t.Errorf("Run error = %v", err)
	}
	if res.Changed != 2 || d.Changed() != 2 || d.OnPod(0) != 2 {
		t.Errorf("Result %+v, decision changed %d, pod 0 holds %d; want 2 each", res, d.Changed(), d.OnPod(0))
	}
}

func TestRunSkip(t *testing.T) {
	skipA := &ft.SkippingPlugin{PluginName: "SkipA"}
	skipB := &ft.SkippingPlugin{}
	rec := &ft.Recorder{}
	p := newProfile(t, framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}, skipB, rec},
		ws(skipA, 10), ws(skipB, 10), ws(ft.LowestOrdinalScorer{}, 1))
	if !p.Grouped() {
		t.Fatalf("profile not grouped")
	}
	_, ps, err, ex := runBoth(t, p, fourPods(), nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Without the skipped plugins: lowest ordinal, until full.
	if diff := cmp.Diff([]vsched.Placement{pl("n0", "a", 0, 2)}, ps); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{ft.SkippingName, "SkipA"}, ex.Skipped); diff != "" {
		t.Errorf("Skipped (-want +got):\n%s", diff)
	}
	for _, s := range []*ft.SkippingPlugin{skipA, skipB} {
		if s.Filtered.Load()+s.Scored.Load()+s.Changes.Load() != 0 {
			t.Errorf("%s called after Skip: %d filter, %d score, %d changed", s.Name(), s.Filtered.Load(), s.Scored.Load(), s.Changes.Load())
		}
	}
	// Skipped plugins do not appear among the scores either.
	for _, c := range ex.Steps[0].Candidates {
		if len(c.Scores) != 1 || c.Scores[0].Plugin != ft.LowestOrdinalName {
			t.Errorf("%s scored by %v", c.Pod, c.Scores)
		}
	}
	// The recorder was not skipped: runBoth ran twice, 2 changes each.
	if rec.Prepared() != 2 || len(rec.Changes()) != 4 {
		t.Errorf("recorder: prepared %d, %d changes", rec.Prepared(), len(rec.Changes()))
	}
}

// TestRunSkippedCapacityEnforcer: when the only capacity filter skips
// itself, nothing rejects full pods, and the grouped path must not reject
// them either: an explanation would otherwise change the decision.
func TestRunSkippedCapacityEnforcer(t *testing.T) {
	p := newProfile(t, framework.Place, []framework.FilterPlugin{&ft.SkippingPlugin{}}, ws(ft.LowestOrdinalScorer{}, 1))
	if !p.Grouped() {
		t.Fatalf("profile not grouped")
	}
	c := fourPods().Use(0, 4)
	_, ps, err, _ := runBoth(t, p, c, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]vsched.Placement{pl("n0", "a", 0, 1)}, ps); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
}

func TestRunChangeObserver(t *testing.T) {
	tests := []struct {
		name  string
		mode  framework.Mode
		base  []vsched.Placement
		n     int32
		extra []framework.WeightedScore
		want  []ft.Change
	}{
		{
			name:  "placing",
			mode:  framework.Place,
			n:     3,
			extra: []framework.WeightedScore{ws(ft.PodSpreadScorer{}, 1)},
			want:  []ft.Change{{Ordinal: 0, Delta: 1, OnPod: 1}, {Ordinal: 1, Delta: 1, OnPod: 1}, {Ordinal: 2, Delta: 1, OnPod: 1}},
		},
		{
			// Ties go to the highest ordinal: pod 1 first, then pod 0.
			name: "removing",
			mode: framework.Remove,
			base: []vsched.Placement{ft.P(0, 2), ft.P(1, 1)},
			n:    2,
			want: []ft.Change{{Ordinal: 1, Delta: -1, OnPod: 0}, {Ordinal: 0, Delta: -1, OnPod: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One instance as filter and as scorer: prepared once, told
			// once per change.
			rec := &ft.Recorder{}
			filters := []framework.FilterPlugin{rec}
			if tt.mode == framework.Place {
				filters = append(filters, ft.CapacityFilter{})
			}
			scores := append([]framework.WeightedScore{ws(rec, 1)}, tt.extra...)
			p := newProfile(t, tt.mode, filters, scores...)
			c := fourPods().UsePlacements(tt.base)
			for _, ex := range []*framework.Explanation{nil, {}} {
				rec.Reset()
				if _, _, err := run(t, p, c, tt.base, tt.n, ex); err != nil {
					t.Fatal(err)
				}
				if rec.Prepared() != 1 {
					t.Errorf("explained %v: Prepare called %d times", ex != nil, rec.Prepared())
				}
				if diff := cmp.Diff(tt.want, rec.Changes()); diff != "" {
					t.Errorf("explained %v: changes (-want +got):\n%s", ex != nil, diff)
				}
			}
		})
	}
}

func TestRunNormalizer(t *testing.T) {
	norm := &ft.NormalizingScorer{Raw: map[int32]int64{0: 10, 1: 40, 2: 20, 3: 0}}
	p := newProfile(t, framework.Place, capacityOnly(), ws(norm, 2))
	if p.Grouped() {
		t.Errorf("a profile with a normalizer is grouped")
	}
	_, ps, err, ex := runBoth(t, p, fourPods(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].PodName != "adapter-1" {
		t.Errorf("placed on %s, want adapter-1", ps[0].PodName)
	}
	// Normalized against the top raw score 40: 10 -> 25, 40 -> 100,
	// 20 -> 50, 0 -> 0; then weight 2.
	want := map[string]int64{"adapter-0": 50, "adapter-1": 200, "adapter-2": 100, "adapter-3": 0}
	if diff := cmp.Diff(want, firstStep(t, ex)); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	// Once per vreplica, with and without the explanation.
	if got := norm.Calls.Load(); got != 2 {
		t.Errorf("NormalizeScores called %d times, want 2", got)
	}
}

func TestRunReason(t *testing.T) {
	tests := []struct {
		name        string
		mode        framework.Mode
		cluster     *ft.Cluster
		filters     []framework.FilterPlugin
		base        []vsched.Placement
		n           int32
		wantChanged int32
		wantReason  string
	}{
		{
			// Pod 0 is full, 1 and 2 are rejected, 3 takes one and is full.
			name:        "filters reject everything",
			mode:        framework.Place,
			cluster:     fourPods().Use(0, 4).Use(3, 3),
			filters:     []framework.FilterPlugin{ft.CapacityFilter{}, &ft.RejectFilter{Ordinals: []int32{1, 2}}},
			n:           3,
			wantChanged: 1,
			wantReason:  `bound by FakeReject, which rejected 2 pod(s) that have room; 4 candidate pod(s): FakeCapacity rejected 2 pod(s) (e.g. "pod has no free capacity"); FakeReject rejected 2 pod(s) (e.g. "ordinal 1 is rejected")`,
		},
		{
			name:       "no candidates",
			mode:       framework.Place,
			cluster:    fourPods().Drain(0).Drain(1).Cordon("n0").Remove(3),
			filters:    capacityOnly(),
			n:          1,
			wantReason: "no candidate pods (none exist, or all are unbound, draining or on unschedulable nodes)",
		},
		{
			name:       "removing from nothing",
			mode:       framework.Remove,
			cluster:    fourPods(),
			n:          1,
			wantReason: "the source holds no vreplicas",
		},
		{
			name:        "removing, holders rejected",
			mode:        framework.Remove,
			cluster:     fourPods().Use(1, 1).Use(2, 1),
			base:        []vsched.Placement{ft.P(1, 1), ft.P(2, 1)},
			filters:     []framework.FilterPlugin{&ft.RejectFilter{Ordinals: []int32{1}, Code: framework.UnschedulableAndUnresolvable, Reason: "keep it"}},
			n:           2,
			wantChanged: 1,
			wantReason:  `1 candidate pod(s): FakeReject rejected 1 pod(s) (e.g. "keep it")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProfile(t, tt.mode, tt.filters)
			res, _, err, ex := runBoth(t, p, tt.cluster, tt.base, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(framework.Result{Changed: tt.wantChanged, Reason: tt.wantReason}, res); diff != "" {
				t.Errorf("Result (-want +got):\n%s", diff)
			}
			last := ex.Steps[len(ex.Steps)-1]
			if last.Winner != -1 || last.Reason != tt.wantReason || last.VReplica != tt.wantChanged+1 {
				t.Errorf("last step: winner %d, vreplica %d, reason %q", last.Winner, last.VReplica, last.Reason)
			}
		})
	}
}

// cancelAfter cancels a context after its first change.
type cancelAfter struct{ cancel context.CancelFunc }

func (cancelAfter) Name() string { return "CancelAfter" }
func (cancelAfter) Filter(context.Context, *framework.Decision, int32) *framework.Status {
	return nil
}
func (c cancelAfter) Changed(*framework.Decision, int32, int32) { c.cancel() }

func TestRunContext(t *testing.T) {
	p := newProfile(t, framework.Place, capacityOnly())
	d, _ := framework.NewDecision(framework.Place, fourPods(), nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := p.Run(ctx, d, 3, nil)
	if !errors.Is(err, context.Canceled) || res.Changed != 0 || d.Changed() != 0 {
		t.Errorf("cancelled before: %+v, %v, %d changed", res, err, d.Changed())
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	p = newProfile(t, framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}, cancelAfter{cancel}})
	d, _ = framework.NewDecision(framework.Place, fourPods(), nil, nil)
	res, err = p.Run(ctx, d, 3, nil)
	if !errors.Is(err, context.Canceled) || res.Changed != 1 || d.Changed() != 1 {
		t.Errorf("cancelled midway: %+v, %v, %d changed", res, err, d.Changed())
	}
}

func TestRunModeMismatch(t *testing.T) {
	place := newProfile(t, framework.Place, capacityOnly())
	remove := newProfile(t, framework.Remove, nil)
	for _, tt := range []struct {
		p       *framework.Profile
		mode    framework.Mode
		wantErr string
	}{
		{place, framework.Remove, "a place profile cannot run a remove decision"},
		{remove, framework.Place, "a remove profile cannot run a place decision"},
	} {
		d, _ := framework.NewDecision(tt.mode, fourPods(), nil, nil)
		// The mode is checked even when there is nothing to do.
		for _, n := range []int32{0, 1} {
			if _, err := tt.p.Run(context.Background(), d, n, nil); err == nil || err.Error() != tt.wantErr {
				t.Errorf("Run(n=%d) error = %v, want %q", n, err, tt.wantErr)
			}
		}
	}
}

func TestRunNothingToDo(t *testing.T) {
	rec := &ft.Recorder{}
	p := newProfile(t, framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}, rec})
	for _, n := range []int32{0, -1} {
		ex := &framework.Explanation{}
		d, _ := framework.NewDecision(framework.Place, fourPods(), nil, nil)
		res, err := p.Run(context.Background(), d, n, ex)
		if err != nil || res != (framework.Result{}) || d.Changed() != 0 {
			t.Errorf("Run(n=%d) = %+v, %v, %d changed", n, res, err, d.Changed())
		}
		if rec.Prepared() != 0 || len(ex.Steps) != 0 {
			t.Errorf("Run(n=%d) prepared %d, explained %d steps", n, rec.Prepared(), len(ex.Steps))
		}
	}
}

// sharedRejecter returns one preallocated status for every rejection, as an
// allocation-conscious plugin would.
type sharedRejecter struct{}

var sharedRejection = framework.NewStatus(framework.Unschedulable, "odd ordinal")

func (sharedRejecter) Name() string { return "SharedRejecter" }
func (sharedRejecter) Filter(_ context.Context, _ *framework.Decision, ord int32) *framework.Status {
	if ord%2 == 1 {
		return sharedRejection
	}
	return nil
}

// TestRunConcurrent runs one profile on many decisions at once (run it with
// -race): the profile, and the statuses plugins return, are shared.
func TestRunConcurrent(t *testing.T) {
	p := newProfile(t, framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}, sharedRejecter{}},
		ws(ft.ZoneSpreadScorer{}, 2), ws(ft.PodSpreadScorer{}, 1))
	c := fourPods()
	c.Candidates() // settle the fixture's lazy state before sharing it
	want := []vsched.Placement{pl("n0", "a", 0, 3), pl("n0", "a", 2, 2)}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			var ex *framework.Explanation
			if i%2 == 0 {
				ex = &framework.Explanation{}
			}
			d, _ := framework.NewDecision(framework.Place, c, nil, nil)
			if _, err := p.Run(context.Background(), d, 5, ex); err != nil {
				t.Error(err)
				return
			}
			if diff := cmp.Diff(want, d.Placements()); diff != "" {
				t.Errorf("run %d placements (-want +got):\n%s", i, diff)
			}
			if ex != nil && ex.Steps[0].Candidates[1].Rejected.Plugin != "SharedRejecter" {
				t.Errorf("rejection not named: %+v", ex.Steps[0].Candidates[1].Rejected)
			}
		})
	}
	wg.Wait()
	if sharedRejection.Plugin() != "" {
		t.Errorf("the runtime wrote to a plugin's status: %q", sharedRejection.Plugin())
	}
}

// TestRunGroupedRepresentatives pins the fast path's choice of one pod per
// class on small cases, with and without the cluster's free-candidate index:
// holders are evaluated one by one, and each node's lowest pod that has
// room and holds nothing stands for the others.
func TestRunGroupedRepresentatives(t *testing.T) {
	sixOnOneNode := func() *ft.Cluster {
		return ft.NewCluster(4).Node("n0", "a").Node("n1", "b").Pods("n0", "n0", "n0", "n0", "n0", "n0", "n1")
	}
	tests := []struct {
		name    string
		cluster *ft.Cluster
		base    []vsched.Placement
		n       int32
		want    []vsched.Placement
	}{
		{
			// Pod 0 holds one and has room; pod 1 is the first non-holder
			// on the node. Adding to pod 1 keeps the pod skew at 1, to
			// pod 0 makes it 2.
			name:    "a holder before the node's first non-holder",
			cluster: ft.NewCluster(4).Node("n0", "a").Pods("n0", "n0").Use(0, 1),
			base:    []vsched.Placement{ft.P(0, 1)},
			n:       1,
			want:    []vsched.Placement{pl("n0", "a", 0, 1), pl("n0", "a", 1, 1)},
		},
		{
			// Holders 0 and 1; pods 6 (n1) and 2-5 (n0) are empty: each
			// new vreplica goes to the lowest empty pod, which moves
			// along n0's queue.
			name:    "walking a node's queue",
			cluster: sixOnOneNode().Use(0, 1).Use(1, 1),
			base:    []vsched.Placement{ft.P(0, 1), ft.P(1, 1)},
			n:       4,
			want: []vsched.Placement{
				pl("n0", "a", 0, 1), pl("n0", "a", 1, 1), pl("n0", "a", 2, 1), pl("n0", "a", 3, 1),
				pl("n0", "a", 4, 1), pl("n0", "a", 5, 1),
			},
		},
		{
			// Pods 0-2 are full without holding the source: the first
			// representative of n0 is pod 3.
			name:    "full pods are not representatives",
			cluster: sixOnOneNode().Use(0, 4).Use(1, 4).Use(2, 4),
			n:       2,
			want:    []vsched.Placement{pl("n0", "a", 3, 1), pl("n0", "a", 4, 1)},
		},
		{
			// Pod 0 holds 4 and is full; pod 6 on n1 is the only other
			// room once n0's pods 1-5 are used up by others.
			name:    "a full holder is skipped",
			cluster: sixOnOneNode().Use(0, 4).Use(1, 4).Use(2, 4).Use(3, 4).Use(4, 4).Use(5, 4),
			base:    []vsched.Placement{ft.P(0, 4)},
			n:       2,
			want:    []vsched.Placement{pl("n0", "a", 0, 4), pl("n1", "b", 6, 2)},
		},
	}
	p := newProfile(t, framework.Place, capacityOnly(), ws(ft.PodSpreadScorer{}, 1))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cluster
			_, ps, err, _ := runBoth(t, p, c, tt.base, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ps); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
			_, indexed, err := run(t, p, c.Indexed(), tt.base, tt.n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, indexed); diff != "" {
				t.Errorf("placements with the index (-want +got):\n%s", diff)
			}
		})
	}
}

// reasonsProbe rejects the ordinals listed and records, per call, whether
// the decision said its reasons would be read.
type reasonsProbe struct {
	reject map[int32]bool
	seen   *[]bool
}

func (reasonsProbe) Name() string { return "ReasonsProbe" }
func (p reasonsProbe) Filter(_ context.Context, d *framework.Decision, ord int32) *framework.Status {
	*p.seen = append(*p.seen, d.ReasonsWanted())
	if p.reject[ord] {
		return framework.NewStatus(framework.Unschedulable, "rejected")
	}
	return nil
}

// A filter asked only to pick a winner is told its reasons go unread; asked
// to explain, it is told they are read; asked why nothing fit, it is told
// they are read only for the rejection quoted.
func TestRunReasonsWanted(t *testing.T) {
	tests := []struct {
		name    string
		explain bool
		want    []bool
	}{
		// Pods 0-3 (capacity 1) are candidates; the probe rejects 1-3.
		// The first vreplica goes to pod 0 (the probe asked about all
		// four quietly); for the second, pod 0 is full (the capacity
		// filter rejects it first) and the probe rejects 1-3 quietly;
		// then whyNone asks about 1-3 again, quietly, and once more
		// about 1, the first it rejects, loudly, for the message it
		// quotes (so that saying why costs no allocation per pod).
		{"picking, then why none", false, []bool{false, false, false, false, false, false, false, false, true, false, false}},
		{"explaining", true, []bool{true, true, true, true, true, true, true, false, true, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []bool
			probe := reasonsProbe{reject: map[int32]bool{1: true, 2: true, 3: true}, seen: &seen}
			p := newProfile(t, framework.Place, []framework.FilterPlugin{ft.CapacityFilter{}, probe})
			var ex *framework.Explanation
			if tt.explain {
				ex = &framework.Explanation{}
			}
			res, _, err := run(t, p, ft.NewCluster(1).Node("n0", "a").Pods("n0", "n0", "n0", "n0"), nil, 2, ex)
			if err != nil || res.Changed != 1 {
				t.Fatalf("Run: changed %d, %v", res.Changed, err)
			}
			if d := cmp.Diff(tt.want, seen); d != "" {
				t.Errorf("ReasonsWanted per Filter call (-want +got):\n%s", d)
			}
		})
	}
}
