package plugintest

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/internal/podlimit"
)

// Build returns what newPlugin builds from args, failing t if it fails.
func Build[A, P any](t testing.TB, newPlugin func(context.Context, *A) (P, error), args *A) P {
	t.Helper()
	p, err := newPlugin(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// OnOneNode returns a cluster of n pods of capacity 10 on node n0 in zone.
func OnOneNode(n int, zone string) *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", zone).Pods(slices.Repeat([]string{"n0"}, n)...)
}

// Profile builds a profile of the plugins, failing t if it cannot.
func Profile(t testing.TB, mode framework.Mode, filters []framework.FilterPlugin, scores []framework.WeightedScore) *framework.Profile {
	t.Helper()
	p, err := framework.NewProfile(mode, filters, scores)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// GroupedProfile is a Place Profile that must be evaluated by class, which
// every plugin's EquivalenceAware promise allows.
func GroupedProfile(t testing.TB, filters []framework.FilterPlugin, scores []framework.WeightedScore) *framework.Profile {
	t.Helper()
	p := Profile(t, framework.Place, filters, scores)
	if !p.Grouped() {
		t.Error("profile is not evaluated by class")
	}
	return p
}

// Registered is what a registration says of a plugin, for comparison.
type Registered struct {
	Name      string
	Kinds     framework.Kind
	Modes     framework.Modes
	TakesArgs bool
}

// ExpectRegistration checks what reg says of its plugin.
func ExpectRegistration(t testing.TB, reg framework.Registration, want Registered) {
	t.Helper()
	got := Registered{Name: reg.Name, Kinds: reg.Kinds, Modes: reg.Modes, TakesArgs: reg.TakesArgs}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registration (-want +got):\n%s", diff)
	}
}

// ExpectRejected checks that newPlugin, and spec's registration, refuse
// args with exactly the error want.
func ExpectRejected[A, P any](t testing.TB, spec framework.Spec[A], newPlugin func(context.Context, *A) (P, error), args *A, want string) {
	t.Helper()
	if _, err := newPlugin(context.Background(), args); err == nil || err.Error() != want {
		t.Errorf("New = %v, want %q", err, want)
	}
	if _, err := spec.Registration().New(context.Background(), args); err == nil || err.Error() != want {
		t.Errorf("Registration.New = %v, want %q", err, want)
	}
}

// Filtering is a Filter case: Plugin's verdict on the pod with the ordinal
// in a Place decision for Src on Cluster.
type Filtering struct {
	Name    string
	Cluster *frameworktest.Cluster
	Src     *frameworktest.VPod
	Plugin  framework.FilterPlugin
	// PodLimit is a pod cap published as NoMaxResourceCount does; 0 for none.
	PodLimit int32
	Ordinal  int32
	Want     Outcome
}

// ExpectFilters checks every case.
func ExpectFilters(t *testing.T, cases []Filtering) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			d := decideCapped(t, tc.Cluster, tc.Src, tc.PodLimit)
			if diff := cmp.Diff(tc.Want, Filter(tc.Plugin, d, tc.Ordinal)); diff != "" {
				t.Errorf("Filter(%d) (-want +got):\n%s", tc.Ordinal, diff)
			}
		})
	}
}

// decideCapped is Decide with a pod cap published when limit > 0.
func decideCapped(t testing.TB, c *frameworktest.Cluster, src *frameworktest.VPod, limit int32) *framework.Decision {
	t.Helper()
	d := Decide(t, c, src)
	if limit > 0 {
		podlimit.Set(d, limit)
	}
	return d
}

// Scoring is a Score case: Plugin's scores in a decision for Src on
// Cluster.
type Scoring struct {
	Name    string
	Cluster *frameworktest.Cluster
	Src     *frameworktest.VPod
	Plugin  framework.ScorePlugin
	// PodLimit is a pod cap published as NoMaxResourceCount does; 0 for none.
	PodLimit int32
	Want     map[int32]int64
}

// ExpectScores checks every case in a Place decision, where Want lists every
// candidate pod. A PreparePlugin is prepared first, as the runtime does.
func ExpectScores(t *testing.T, cases []Scoring) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			d := decideCapped(t, tc.Cluster, tc.Src, tc.PodLimit)
			prepare(t, tc.Plugin, d)
			if diff := cmp.Diff(tc.Want, Scores(t, tc.Plugin, d)); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

// ExpectRemovalScores checks every case in a Remove decision, scoring the
// pods Want names, candidates or not. A PreparePlugin is checked before and
// after Prepare: a Score called without it must agree.
func ExpectRemovalScores(t *testing.T, cases []Scoring) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			d := DecideRemove(t, tc.Cluster, tc.Src)
			expectScoresAt(t, tc.Plugin, d, tc.Want, "")
			if prepare(t, tc.Plugin, d) {
				expectScoresAt(t, tc.Plugin, d, tc.Want, ", prepared")
			}
		})
	}
}

// prepare prepares d for pl when pl is a PreparePlugin, as the runtime
// does, failing t if that fails; it reports whether pl was one.
func prepare(t *testing.T, pl framework.ScorePlugin, d *framework.Decision) bool {
	t.Helper()
	pp, ok := pl.(framework.PreparePlugin)
	if !ok {
		return false
	}
	if st := pp.Prepare(context.Background(), d); !st.IsSuccess() {
		t.Fatalf("Prepare: %v", st)
	}
	return true
}

func expectScoresAt(t *testing.T, pl framework.ScorePlugin, d *framework.Decision, want map[int32]int64, when string) {
	t.Helper()
	got := map[int32]int64{}
	for ord := range want {
		sc, st := pl.Score(context.Background(), d, ord)
		if !st.IsSuccess() {
			t.Fatalf("Score(%d)%s: %v", ord, when, st)
		}
		got[ord] = sc
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scores%s (-want +got):\n%s", when, diff)
	}
}

// Placing is a profile case: placing N vreplicas of Src on a Cluster.
type Placing struct {
	Name       string
	Cluster    func() *frameworktest.Cluster
	Src        *frameworktest.VPod
	N          int32
	WantResult framework.Result
	Want       []vsched.Placement
}

// ExpectPlacing runs every case through p with Run.
func ExpectPlacing(t *testing.T, p *framework.Profile, cases []Placing) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) { tc.Expect(t, p) })
	}
}

// Expect runs the case through p with Run and checks the result and the
// placements.
func (tc Placing) Expect(t testing.TB, p *framework.Profile) {
	t.Helper()
	res, got := Run(t, tc.Cluster, tc.Src, p, tc.N)
	if diff := cmp.Diff(tc.WantResult, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(tc.Want, got); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
}

// Removing is a descheduler case: removing N vreplicas of Src from a
// Cluster with a Remove profile of Plugin alone.
type Removing struct {
	Name        string
	Cluster     func() *frameworktest.Cluster
	Src         *frameworktest.VPod
	Plugin      framework.ScorePlugin
	N           int32
	WantChanged int32
	// Want is what the source keeps; WantOrder the pod each removal came
	// from, -1 for a step that found none.
	Want      []vsched.Placement
	WantOrder []int32
}

// ExpectRemoving runs every case with runRemove and checks the number
// removed, the placements left and the order of the removals.
func ExpectRemoving(t *testing.T, cases []Removing) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			p := Profile(t, framework.Remove, nil, []framework.WeightedScore{{Plugin: tc.Plugin, Weight: 1}})
			res, got, order := runRemove(t, tc.Cluster, tc.Src, p, tc.N)
			if res.Changed != tc.WantChanged {
				t.Errorf("removed %d, want %d (%s)", res.Changed, tc.WantChanged, res.Reason)
			}
			if diff := cmp.Diff(tc.Want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.WantOrder, order); diff != "" {
				t.Errorf("removal order (-want +got):\n%s", diff)
			}
		})
	}
}

// ExpectNoArgs checks the args of a plugin that takes none: no args, {} and
// null decode and build, and built, unless nil, checks each plugin; raw,
// which sets a field, fails with exactly wantErr.
func ExpectNoArgs(t *testing.T, spec framework.Spec[framework.NoArgs], path *field.Path, raw, wantErr string, built func(*testing.T, framework.Plugin)) {
	t.Helper()
	cases := []frameworktest.ArgsCase[framework.NoArgs]{
		{Name: "none", Raw: "", Want: &framework.NoArgs{}},
		{Name: "empty object", Raw: "{}", Want: &framework.NoArgs{}},
		{Name: "null", Raw: "null", Want: &framework.NoArgs{}},
		{Name: "a field", Raw: raw, WantErrs: []string{wantErr}},
	}
	frameworktest.ExpectDecodeArgs(t, spec, path, cases, func(t *testing.T, pl framework.Plugin, _ *framework.NoArgs) {
		if built != nil {
			built(t, pl)
		}
	})
}
