package frameworktest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

var ctx = context.Background()

// example: capacity 4; n0 (zone a) pods 0, 2; n1 (zone b) pods 1, 3; pod 4
// unbound. The source holds 2 on pod 0 and 1 on pod 1; pod 2 is full.
func example(t *testing.T, mode framework.Mode) *framework.Decision {
	t.Helper()
	base := []vsched.Placement{ft.P(0, 2), ft.P(1, 1)}
	c := ft.NewCluster(4).Node("n0", "a").Node("n1", "b").Pods("n0", "n1", "n0", "n1", "").
		UsePlacements(base).Use(2, 4)
	d, err := framework.NewDecision(mode, c, nil, base)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type scores map[int32]int64

func scoreAll(t *testing.T, p framework.ScorePlugin, d *framework.Decision) scores {
	t.Helper()
	out := scores{}
	for ord := int32(0); ord <= 5; ord++ {
		s, st := p.Score(ctx, d, ord)
		if !st.IsSuccess() {
			t.Fatalf("%s.Score(%d): %v", p.Name(), ord, st)
		}
		out[ord] = s
	}
	return out
}

func codes(f framework.FilterPlugin, d *framework.Decision) map[int32]string {
	out := map[int32]string{}
	for ord := int32(0); ord <= 5; ord++ {
		out[ord] = f.Filter(ctx, d, ord).String()
	}
	return out
}

func TestScorers(t *testing.T) {
	place, remove := example(t, framework.Place), example(t, framework.Remove)
	tests := []struct {
		name   string
		p      framework.ScorePlugin
		d      *framework.Decision
		want   scores
		aware  bool
		wantNm string
	}{
		{
			// Zones {a: 2, b: 1}: adding to a -> skew 2 (50), to b ->
			// skew 0 (100). Unbound pod 4 and unknown pod 5: 0.
			name: "zone spread, placing", p: ft.ZoneSpreadScorer{}, d: place,
			want: scores{0: 50, 1: 100, 2: 50, 3: 100}, aware: true, wantNm: ft.ZoneSpreadName,
		},
		{
			// Removing from a -> skew 0 (100), from b -> skew 2 (50).
			name: "zone spread, removing", p: ft.ZoneSpreadScorer{}, d: remove,
			want: scores{0: 100, 1: 50, 2: 100, 3: 50}, aware: true, wantNm: ft.ZoneSpreadName,
		},
		{
			name: "node spread, placing", p: ft.NodeSpreadScorer{}, d: place,
			want: scores{0: 50, 1: 100, 2: 50, 3: 100}, aware: true, wantNm: ft.NodeSpreadName,
		},
		{
			// Eligible pods: 0 (2), 1 (1), 3 (0); pod 2 is full and
			// empty, pod 4 unbound. Adding to 0 -> {3, 1, 0} skew 3 (25);
			// to 1 -> {2, 2, 0} 2 (50); to 3, 2, 4, 5 (0 held) ->
			// {2, 1, 1} 1 (75).
			name: "pod spread, placing", p: ft.PodSpreadScorer{}, d: place,
			want: scores{0: 25, 1: 50, 2: 75, 3: 75, 4: 75, 5: 75}, aware: true, wantNm: ft.PodSpreadName,
		},
		{
			// 5 replicas: 100*(5-ordinal)/5; pod 2, full of other
			// sources, and unknown pod 5 (no free capacity) count as in
			// use: 100.
			name: "lowest ordinal, placing", p: ft.LowestOrdinalScorer{}, d: place,
			want: scores{0: 100, 1: 80, 2: 100, 3: 40, 4: 20, 5: 100}, aware: true, wantNm: ft.LowestOrdinalName,
		},
		{
			name: "highest ordinal, removing", p: ft.LowestOrdinalScorer{}, d: remove,
			want: scores{0: 20, 1: 40, 2: 60, 3: 80, 4: 100, 5: 100}, aware: true, wantNm: ft.LowestOrdinalName,
		},
		{
			name: "scripted", p: &ft.ScriptedScorer{Scores: map[int32]int64{2: 7}, Default: 3}, d: place,
			want: scores{0: 3, 1: 3, 2: 7, 3: 3, 4: 3, 5: 3}, wantNm: ft.ScriptedName,
		},
		{
			name: "recorder", p: &ft.Recorder{PluginName: "R"}, d: place,
			want: scores{0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0}, aware: true, wantNm: "R",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, scoreAll(t, tt.p, tt.d), cmp.Comparer(func(a, b scores) bool {
				for k := range 6 {
					if a[int32(k)] != b[int32(k)] {
						return false
					}
				}
				return true
			})); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
			ea, _ := tt.p.(framework.EquivalenceAware)
			if (ea != nil && ea.EquivalentWithinClass()) != tt.aware {
				t.Errorf("equivalence-aware = %v", !tt.aware)
			}
			if tt.p.Name() != tt.wantNm {
				t.Errorf("Name = %q", tt.p.Name())
			}
		})
	}
	empty, _ := framework.NewDecision(framework.Place, ft.NewCluster(1), nil, nil)
	if s, _ := (ft.LowestOrdinalScorer{}).Score(ctx, empty, 0); s != 0 {
		t.Errorf("LowestOrdinal without pods = %d", s)
	}
}

func TestFilters(t *testing.T) {
	place, remove := example(t, framework.Place), example(t, framework.Remove)
	ok := "Success"
	tests := []struct {
		name string
		f    framework.FilterPlugin
		d    *framework.Decision
		want map[int32]string
	}{
		{
			name: "capacity, placing", f: ft.CapacityFilter{}, d: place,
			want: map[int32]string{0: ok, 1: ok, 2: "Unschedulable: pod has no free capacity", 3: ok, 4: ok, 5: "Unschedulable: pod has no free capacity"},
		},
		{
			name: "capacity, removing", f: ft.CapacityFilter{}, d: remove,
			want: map[int32]string{0: ok, 1: ok, 2: ok, 3: ok, 4: ok, 5: ok},
		},
		{
			name: "reject, defaults", f: &ft.RejectFilter{Ordinals: []int32{1, 4}}, d: place,
			want: map[int32]string{0: ok, 1: "Unschedulable: ordinal 1 is rejected", 2: ok, 3: ok, 4: "Unschedulable: ordinal 4 is rejected", 5: ok},
		},
		{
			name: "reject, code and reason", f: &ft.RejectFilter{Ordinals: []int32{0}, Code: framework.UnschedulableAndUnresolvable, Reason: "no"}, d: place,
			want: map[int32]string{0: "UnschedulableAndUnresolvable: no", 1: ok, 2: ok, 3: ok, 4: ok, 5: ok},
		},
		{
			// The source holds 2 pods: every other pod is rejected.
			name: "max pods reached", f: ft.MaxPodsFilter{Limit: 2}, d: place,
			want: map[int32]string{
				0: ok, 1: ok, 2: "UnschedulableAndUnresolvable: source already holds 2 pod(s)",
				3: "UnschedulableAndUnresolvable: source already holds 2 pod(s)",
				4: "UnschedulableAndUnresolvable: source already holds 2 pod(s)",
				5: "UnschedulableAndUnresolvable: source already holds 2 pod(s)",
			},
		},
		{
			name: "max pods not reached", f: ft.MaxPodsFilter{Limit: 3}, d: place,
			want: map[int32]string{0: ok, 1: ok, 2: ok, 3: ok, 4: ok, 5: ok},
		},
		{
			name: "max pods, removing", f: ft.MaxPodsFilter{Limit: 0}, d: remove,
			want: map[int32]string{0: ok, 1: ok, 2: ok, 3: ok, 4: ok, 5: ok},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, codes(tt.f, tt.d)); diff != "" {
				t.Errorf("filter (-want +got):\n%s", diff)
			}
		})
	}
	if c, ok := any(ft.CapacityFilter{}).(framework.CapacityEnforcer); !ok || !c.EnforcesCapacity() {
		t.Errorf("CapacityFilter does not enforce capacity")
	}
	for _, f := range []framework.FilterPlugin{ft.CapacityFilter{}, ft.MaxPodsFilter{}, ft.ClassFilter{}} {
		if !f.(framework.EquivalenceAware).EquivalentWithinClass() {
			t.Errorf("%s is not equivalence-aware", f.Name())
		}
	}
	if (&ft.RejectFilter{PluginName: "X"}).Name() != "X" || (ft.MaxPodsFilter{}).Name() != ft.MaxPodsName || (ft.CapacityFilter{}).Name() != ft.CapacityName {
		t.Errorf("filter names")
	}
}

func TestFailingPlugin(t *testing.T) {
	d := example(t, framework.Place)
	sentinel := errors.New("sentinel")
	tests := []struct {
		name                   string
		f                      *ft.FailingPlugin
		prepare, filter, score string
	}{
		{name: "prepare, default error", f: &ft.FailingPlugin{At: ft.AtPrepare}, prepare: "Error: fake plugin failure", filter: "Success", score: "Success"},
		{name: "filter, given error", f: &ft.FailingPlugin{At: ft.AtFilter, Err: sentinel}, prepare: "Success", filter: "Error: sentinel", score: "Success"},
		{name: "score, code", f: &ft.FailingPlugin{At: ft.AtScore, Code: framework.Skip}, prepare: "Success", filter: "Success", score: "Skip: fake score status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, st := tt.f.Score(ctx, d, 0)
			got := []string{tt.f.Prepare(ctx, d).String(), tt.f.Filter(ctx, d, 0).String(), st.String()}
			if diff := cmp.Diff([]string{tt.prepare, tt.filter, tt.score}, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
	err := (&ft.FailingPlugin{At: ft.AtFilter, Err: sentinel}).Filter(ctx, d, 0).AsError()
	if !errors.Is(err, sentinel) {
		t.Errorf("the failure does not wrap its error")
	}
	if (&ft.FailingPlugin{}).Name() != ft.FailingName {
		t.Errorf("name")
	}
}

func TestSkippingPlugin(t *testing.T) {
	d := example(t, framework.Place)
	s := &ft.SkippingPlugin{}
	if s.Prepare(ctx, d).Code() != framework.Skip {
		t.Errorf("Prepare does not skip")
	}
	s.Filter(ctx, d, 0)
	s.Score(ctx, d, 0)
	s.Changed(d, 0, 1)
	if s.Filtered.Load() != 1 || s.Scored.Load() != 1 || s.Changes.Load() != 1 || s.Name() != ft.SkippingName {
		t.Errorf("counts %d %d %d", s.Filtered.Load(), s.Scored.Load(), s.Changes.Load())
	}
	if !s.EnforcesCapacity() || !s.EquivalentWithinClass() {
		t.Errorf("SkippingPlugin should claim capacity and equivalence")
	}
}

func TestNormalizingScorer(t *testing.T) {
	d := example(t, framework.Place)
	n := &ft.NormalizingScorer{Raw: map[int32]int64{0: 5, 1: 20}}
	if s, _ := n.Score(ctx, d, 1); s != 20 {
		t.Errorf("raw score %d", s)
	}
	got := []framework.PodScore{{Ordinal: 0, Score: 5}, {Ordinal: 1, Score: 20}, {Ordinal: 2}}
	if st := n.NormalizeScores(ctx, d, got); !st.IsSuccess() {
		t.Fatal(st)
	}
	// 5*100/20 = 25.
	if diff := cmp.Diff([]framework.PodScore{{Ordinal: 0, Score: 25}, {Ordinal: 1, Score: 100}, {Ordinal: 2}}, got); diff != "" {
		t.Errorf("normalized (-want +got):\n%s", diff)
	}
	zeros := []framework.PodScore{{Ordinal: 0}, {Ordinal: 1}}
	n.NormalizeScores(ctx, d, zeros)
	if zeros[0].Score != 0 || zeros[1].Score != 0 {
		t.Errorf("all-zero scores changed: %v", zeros)
	}
	n.Fail = true
	if st := n.NormalizeScores(ctx, d, got); st.Code() != framework.Error {
		t.Errorf("Fail did not fail: %v", st)
	}
	if n.Calls.Load() != 3 || n.Name() != ft.NormalizingName {
		t.Errorf("calls %d", n.Calls.Load())
	}
}

func TestRecorder(t *testing.T) {
	d := example(t, framework.Place)
	r := &ft.Recorder{}
	r.Prepare(ctx, d)
	if !r.Filter(ctx, d, 0).IsSuccess() {
		t.Errorf("Recorder rejects")
	}
	r.Changed(d, 0, 1)
	if r.Prepared() != 1 || !cmp.Equal(r.Changes(), []ft.Change{{Ordinal: 0, Delta: 1, OnPod: 2}}) || r.Name() != ft.RecorderName {
		t.Errorf("prepared %d, changes %v", r.Prepared(), r.Changes())
	}
	r.Reset()
	if r.Prepared() != 0 || len(r.Changes()) != 0 {
		t.Errorf("Reset kept calls")
	}
}

func TestZoneCounter(t *testing.T) {
	d := example(t, framework.Place)
	z := ft.ZoneCounter{}
	if _, st := z.Score(ctx, d, 0); st.Code() != framework.Error {
		t.Errorf("Score before Prepare: %v", st)
	}
	if st := z.Prepare(ctx, d); !st.IsSuccess() {
		t.Fatal(st)
	}
	// Zone a holds 2 (score 80), b 1 (90); unbound pod 4 scores 0.
	want := scores{0: 80, 1: 90, 2: 80, 3: 90, 4: 0, 5: 0}
	if diff := cmp.Diff(want, scoreAll(t, z, d)); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
	// A Changed call the decision did not see makes the counts disagree.
	z.Changed(d, 0, 1)
	z.Changed(d, 4, 1) // unbound: no zone to count
	if _, st := z.Score(ctx, d, 0); st.Code() != framework.Error {
		t.Errorf("a miscount went unnoticed: %v", st)
	}
	if z.Name() != ft.ZoneCounterName || !z.EquivalentWithinClass() {
		t.Errorf("name or equivalence")
	}
}

// TestClassPlugins checks that the class fakes keep the promise they exist
// to test: equal answers within a class.
func TestClassPlugins(t *testing.T) {
	c := ft.NewCluster(4).Node("n0", "a").Node("n1", "b").Pods("n0", "n0", "n0", "n1", "n1").Use(0, 1).Use(2, 4)
	d, err := framework.NewDecision(framework.Place, c, nil, []vsched.Placement{ft.P(0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	// Pods 1 (n0) and 3, 4 (n1) are the non-holders with room: 1 is alone
	// in its class, 3 and 4 share one.
	for seed := range uint64(50) {
		s := ft.ClassScorer{Seed: seed}
		f := ft.ClassFilter{Seed: seed, Odds: 2}
		s3, _ := s.Score(ctx, d, 3)
		s4, _ := s.Score(ctx, d, 4)
		if s3 != s4 || s3 < framework.MinScore || s3 > framework.MaxScore {
			t.Errorf("seed %d: class scores %d and %d", seed, s3, s4)
		}
		if f.Filter(ctx, d, 3).Code() != f.Filter(ctx, d, 4).Code() {
			t.Errorf("seed %d: class filtered apart", seed)
		}
	}
	if (ft.ClassFilter{Odds: 0}).Filter(ctx, d, 3) != nil {
		t.Errorf("Odds 0 rejected")
	}
	if (ft.ClassScorer{}).Name() != ft.ClassScorerName || (ft.ClassFilter{}).Name() != ft.ClassFilterName || !(ft.ClassScorer{}).EquivalentWithinClass() {
		t.Errorf("names or equivalence")
	}
}
