package example

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
)

func score(v int64) *int64 { return &v }

func mustNew(t *testing.T, args *Args) *Plugin {
	t.Helper()
	p, err := New(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScore(t *testing.T) {
	cases := []struct {
		name string
		args *Args
		want map[int32]int64
	}{
		{"avoided pods score MinScore", &Args{Ordinals: []int32{1, 3}}, map[int32]int64{0: 100, 1: 0, 2: 100, 3: 0}},
		{"or Score", &Args{Ordinals: []int32{0}, Score: score(60)}, map[int32]int64{0: 60, 1: 100, 2: 100, 3: 100}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.args)
			got := map[int32]int64{}
			for ord := range int32(4) {
				s, st := p.Score(context.Background(), nil, ord)
				if !st.IsSuccess() {
					t.Fatalf("Score(%d): %v", ord, st)
				}
				got[ord] = s
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores by ordinal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	reg := Spec.Registration()
	if reg.Name != Name || reg.Kinds != framework.KindScore || reg.Modes != framework.ForPlace || !reg.TakesArgs {
		t.Errorf("registration = %+v; want a Place score plugin named %s taking args", reg, Name)
	}
	path := field.NewPath("priorities").Index(0).Child("Args")
	cases := []frameworktest.ArgsCase[Args]{
		{Name: "defaulted", Raw: `{"Ordinals": [4]}`, Want: &Args{Ordinals: []int32{4}, Score: score(0)}},
		{Name: "set", Raw: `{"Ordinals": [0, 2], "Score": 50}`, Want: &Args{Ordinals: []int32{0, 2}, Score: score(50)}},
		{Name: "no ordinals", Raw: `{}`, WantErrs: []string{"priorities[0].Args.Ordinals: Required value: list at least one pod ordinal to avoid"}},
		{Name: "negative and repeated", Raw: `{"Ordinals": [2, -1, 2]}`, WantErrs: []string{
			"priorities[0].Args.Ordinals[1]: Invalid value: -1: must be >= 0",
			"priorities[0].Args.Ordinals[2]: Duplicate value: 2",
		}},
		{Name: "score out of range", Raw: `{"Ordinals": [0], "Score": 100}`, WantErrs: []string{
			"priorities[0].Args.Score: Invalid value: 100: must be at least 0 and below 100, the score of the pods not avoided",
		}},
		{Name: "unknown field", Raw: `{"Ordinal": [0]}`, WantErrs: []string{
			`priorities[0].Args: Invalid value: "{\"Ordinal\": [0]}": json: unknown field "Ordinal" (did you mean "Ordinals"?)`,
		}},
	}
	// Each case that decodes is also built with the registration's New.
	frameworktest.ExpectDecodeArgs(t, Spec, path, cases, nil)
}

func TestNew(t *testing.T) {
	p := mustNew(t, &Args{Ordinals: []int32{1}})
	if p.Name() != Name || p.score != framework.MinScore {
		t.Errorf("New = %+v named %q; want Score defaulted to MinScore", p, p.Name())
	}
	_, err := New(context.Background(), nil)
	if want := "AvoidPods: Ordinals: Required value: list at least one pod ordinal to avoid"; err == nil || err.Error() != want {
		t.Errorf("New(nil) = %v, want %q", err, want)
	}
	if _, err := Spec.Registration().New(context.Background(), &Args{Ordinals: []int32{-1}}); err == nil {
		t.Error("Registration.New accepted ordinal -1")
	}
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Lookup(Name); !ok {
		t.Errorf("Registry lacks %s", Name)
	}
}

// TestProfile runs the plugin in a profile as the scheduler does, on one
// node of four pods of capacity 3, with LowestOrdinalPriority at weight 1.
func TestProfile(t *testing.T) {
	on := func(ord, n int32) vsched.Placement {
		p := frameworktest.P(ord, n)
		p.NodeName, p.ZoneName = "n0", "zone-a"
		return p
	}
	cases := []struct {
		name      string
		args      Args
		weight    int32
		vreplicas int32
		want      []vsched.Placement
	}{
		{"steers away from pods 0 and 1", Args{Ordinals: []int32{0, 1}}, 10, 5, []vsched.Placement{on(2, 3), on(3, 2)}},
		{"a preference only: avoided pods once the others are full", Args{Ordinals: []int32{0, 1}}, 10, 8, []vsched.Placement{on(0, 2), on(2, 3), on(3, 3)}},
		{"weight 0 switches it off", Args{Ordinals: []int32{0, 1}}, 0, 5, []vsched.Placement{on(0, 3), on(1, 2)}},
		{"a mild Score loses to LowestOrdinalPriority", Args{Ordinals: []int32{0}, Score: score(99)}, 1, 5, []vsched.Placement{on(0, 3), on(1, 2)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prof, err := framework.NewProfile(framework.Place,
				[]framework.FilterPlugin{podfitsresources.New()},
				[]framework.WeightedScore{{Plugin: mustNew(t, &tc.args), Weight: tc.weight}, {Plugin: lowestordinalpriority.New(), Weight: 1}})
			if err != nil {
				t.Fatal(err)
			}
			cluster := frameworktest.NewCluster(3).Node("n0", "zone-a").Pods("n0", "n0", "n0", "n0")
			d, err := framework.NewDecision(framework.Place, cluster, frameworktest.NewVPod("ns", "src", tc.vreplicas), nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := prof.Run(context.Background(), d, tc.vreplicas, nil)
			if err != nil || res.Changed != tc.vreplicas {
				t.Fatalf("Run = %+v, %v; want %d placed", res, err, tc.vreplicas)
			}
			if diff := cmp.Diff(tc.want, d.Placements()); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}
