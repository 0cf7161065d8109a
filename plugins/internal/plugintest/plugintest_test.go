package plugintest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// fits is a minimal capacity filter scoring lower ordinals higher, so that
// the helpers can be tested without importing a real plugin.
type fits struct{}

func (fits) Name() string                { return "Fits" }
func (fits) EnforcesCapacity() bool      { return true }
func (fits) EquivalentWithinClass() bool { return true }
func (fits) Filter(_ context.Context, d *framework.Decision, ord int32) *framework.Status {
	if d.Free(ord) > 0 {
		return nil
	}
	return framework.NewStatus(framework.Unschedulable, "full")
}
func (fits) Score(_ context.Context, _ *framework.Decision, ord int32) (int64, *framework.Status) {
	return framework.MaxScore - int64(ord), nil
}

func TestHelpers(t *testing.T) {
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(2).Node("n0", "za").Pods("n0", "n0").Use(0, 2)
	}
	src := Source(7, frameworktest.P(1, 1))
	if src.GetVReplicas() != 1 || src.GetResourceCount() != 7 {
		t.Errorf("Source = %+v", src)
	}

	d := Decide(t, newCluster(), src)
	if got := Filter(fits{}, d, 0); got != (Outcome{Code: "Unschedulable", Message: "full"}) {
		t.Errorf("Filter(0) = %+v", got)
	}
	if got := Filter(fits{}, d, 1); got != Pass {
		t.Errorf("Filter(1) = %+v", got)
	}
	if diff := cmp.Diff(map[int32]int64{0: 100, 1: 99}, Scores(t, fits{}, d)); diff != "" {
		t.Errorf("Scores (-want +got):\n%s", diff)
	}

	prof, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{fits{}}, []framework.WeightedScore{{Plugin: fits{}, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	res, got := Run(t, newCluster, src, prof, 2)
	if res.Changed != 1 {
		t.Errorf("Run changed %d, want 1 (pod 1 has one slot)", res.Changed)
	}
	if diff := cmp.Diff([]vsched.Placement{At(1, 2, "n0", "za")}, got); diff != "" {
		t.Errorf("Run placements (-want +got):\n%s", diff)
	}

	errs := field.ErrorList{field.Invalid(field.NewPath("a"), 1, "bad")}
	if diff := cmp.Diff([]string{"a: Invalid value: 1: bad"}, frameworktest.ErrorStrings(errs)); diff != "" {
		t.Errorf("Errors (-want +got):\n%s", diff)
	}
	if frameworktest.ErrorStrings(nil) != nil {
		t.Error("frameworktest.ErrorStrings(nil) is not nil")
	}
}

// limitArgs configures a fits built through a Spec, for the args helpers.
type limitArgs struct {
	Max *int32 `json:"Max,omitempty"`
}

func validateLimit(a *limitArgs, path *field.Path) field.ErrorList {
	if a.Max != nil && *a.Max < 1 {
		return field.ErrorList{field.Invalid(path.Child("Max"), *a.Max, "must be at least 1")}
	}
	return nil
}

func newFits(_ context.Context, args *limitArgs) (fits, error) {
	_, err := framework.DefaultedArgs("Fits", args, nil, validateLimit)
	return fits{}, err
}

var fitsSpec = framework.Spec[limitArgs]{
	Name: "Fits", Kinds: framework.KindFilter | framework.KindScore, Modes: framework.ForPlace | framework.ForRemove,
	Validate: validateLimit, New: framework.NewFunc(newFits),
}

// recorder collects what a helper reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestExpectHelpersPass(t *testing.T) {
	zero := int32(0)
	ExpectRegistration(t, fitsSpec.Registration(), Registered{
		Name: "Fits", Kinds: framework.KindFilter | framework.KindScore, Modes: framework.ForPlace | framework.ForRemove, TakesArgs: true,
	})
	ExpectRejected(t, fitsSpec, newFits, &limitArgs{Max: &zero}, "Fits: Max: Invalid value: 0: must be at least 1")
	frameworktest.ExpectDecodeArgs(t, fitsSpec, field.NewPath("Args"), []frameworktest.ArgsCase[limitArgs]{
		{Name: "none", Raw: "", Want: &limitArgs{}},
		{Name: "zero", Raw: `{"Max": 0}`, WantErrs: []string{"Args.Max: Invalid value: 0: must be at least 1"}},
	}, nil)
	if c := OnOneNode(3, "za"); c.Replicas() != 3 || len(c.Candidates()) != 3 || c.NumNodes() != 1 {
		t.Errorf("OnOneNode(3) has %d pods, %d candidates on %d nodes", c.Replicas(), len(c.Candidates()), c.NumNodes())
	}
	full := func() *frameworktest.Cluster { return OnOneNode(2, "za").Use(0, 10) }
	ExpectFilters(t, []Filtering{
		{Name: "full", Cluster: full(), Src: Source(0), Plugin: fits{}, Want: Outcome{Code: "Unschedulable", Message: "full"}},
		{Name: "room", Cluster: full(), Src: Source(0), Plugin: fits{}, Ordinal: 1, Want: Pass},
	})
	ExpectScores(t, []Scoring{{Name: "candidates", Cluster: full(), Src: Source(0), Plugin: fits{}, Want: map[int32]int64{0: 100, 1: 99}}})
	ExpectRemovalScores(t, []Scoring{{Name: "named pods", Cluster: full(), Src: Source(0, frameworktest.P(1, 2)), Plugin: fits{}, Want: map[int32]int64{1: 99, 7: 93}}})
	// fits prefers lower ordinals, so removals come from pod 0 first.
	ExpectRemoving(t, []Removing{{
		Name: "lowest first", Cluster: func() *frameworktest.Cluster { return OnOneNode(2, "za") },
		Src: Source(0, frameworktest.P(0, 1), frameworktest.P(1, 2)), Plugin: fits{}, N: 4, WantChanged: 3,
		Want: []vsched.Placement{}, WantOrder: []int32{0, 1, 1, -1},
	}})
	ExpectNoArgs(t, framework.Spec[framework.NoArgs]{Name: "Plain", Kinds: framework.KindFilter, Modes: framework.ForPlace, New: framework.NoArgsNewFunc(func() fits { return fits{} })},
		field.NewPath("Args"), `{"Max": 1}`, `Args: Invalid value: "{\"Max\": 1}": json: unknown field "Max"`, nil)
}

func TestExpectHelpersReport(t *testing.T) {
	r := &recorder{TB: t}
	ExpectRegistration(r, fitsSpec.Registration(), Registered{Name: "Other"})
	two := int32(2)
	ExpectRejected(r, fitsSpec, newFits, &limitArgs{Max: &two}, "Fits: bad")
	Placing{Cluster: func() *frameworktest.Cluster { return OnOneNode(1, "za") }, Src: Source(0), N: 1}.Expect(r, Profile(t, framework.Place, []framework.FilterPlugin{fits{}}, nil))
	want := []string{"registration (-want +got)", "New = <nil>", "Registration.New = <nil>", "result (-want +got)", "placements (-want +got)"}
	if len(r.errs) != len(want) {
		t.Fatalf("reported %q, want %d reports starting %q", r.errs, len(want), want)
	}
	for i, w := range want {
		if !strings.HasPrefix(r.errs[i], w) {
			t.Errorf("report %d = %q, want it to start with %q", i, r.errs[i], w)
		}
	}
}
