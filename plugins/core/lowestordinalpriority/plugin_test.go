package lowestordinalpriority

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

// pods returns a cluster of n pods of capacity 10 on one node.
func pods(n int) *frameworktest.Cluster {
	c := frameworktest.NewCluster(10).Node("n0", "za")
	for range n {
		c.Pods("n0")
	}
	return c
}

func TestScore(t *testing.T) {
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		want    map[int32]int64
	}{
		// R=1: MaxScore
		{name: "one pod", cluster: pods(1), want: map[int32]int64{0: 100}},
		// R=2: 100*(1-o)/1
		{name: "two pods", cluster: pods(2), want: map[int32]int64{0: 100, 1: 0}},
		// R=4: 100*(3-o)/3 = 100, 66, 33, 0
		{name: "four pods", cluster: pods(4), want: map[int32]int64{0: 100, 1: 66, 2: 33, 3: 0}},
		// R=5: 100*(4-o)/4 = 100, 75, 50, 25, 0
		{name: "five pods", cluster: pods(5), want: map[int32]int64{0: 100, 1: 75, 2: 50, 3: 25, 4: 0}},
		// R=5 with pods 0 and 2 not candidates: the others keep their scores
		{name: "non-candidates leave scores alone", cluster: pods(5).Drain(0).Remove(2), want: map[int32]int64{1: 75, 3: 25, 4: 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, plugintest.Source(0))
			got := plugintest.Scores(t, New(), d)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScoreBounds(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		replicas int
		ordinal  int32
		want     int64
	}{
		// R=3: 100*(2-5)/2 = -150, clamped to 0
		{name: "ordinal beyond replicas", replicas: 3, ordinal: 5, want: 0},
		// R=3: 100*(2+1)/2 = 150, clamped to 100
		{name: "negative ordinal", replicas: 3, ordinal: -1, want: 100},
		// R=0: MaxScore
		{name: "no replicas", replicas: 0, ordinal: 0, want: 100},
		// R=1001: 100*(1000-1)/1000 = 99 (integer division)
		{name: "many replicas", replicas: 1001, ordinal: 1, want: 99},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, pods(tc.replicas), plugintest.Source(0))
			got, st := New().Score(ctx, d, tc.ordinal)
			if got != tc.want || !st.IsSuccess() {
				t.Errorf("Score(%d) = %d, %v; want %d, success", tc.ordinal, got, st, tc.want)
			}
		})
	}
	// The promise behind EquivalentWithinClass.
	d := plugintest.Decide(t, pods(37), plugintest.Source(0))
	prev := framework.MaxScore
	for o := int32(-2); o < 40; o++ {
		got, _ := New().Score(ctx, d, o)
		if got > prev || got < framework.MinScore || got > framework.MaxScore {
			t.Fatalf("Score(%d) = %d after %d: not non-increasing within [0, 100]", o, got, prev)
		}
		prev = got
	}
}

func TestRegistration(t *testing.T) {
	reg := Spec.Registration()
	if reg.Name != Name || reg.Kinds != framework.KindScore || reg.Modes != framework.ForPlace || reg.TakesArgs {
		t.Errorf("registration = %+v; want a Place score plugin named %s without args", reg, Name)
	}
	p := New()
	if p.Name() != Name || !p.EquivalentWithinClass() {
		t.Errorf("Name %q, EquivalentWithinClass %v", p.Name(), p.EquivalentWithinClass())
	}
	path := field.NewPath("priorities").Index(1).Child("Args")
	args, errs := reg.DecodeArgs([]byte("{}"), path)
	if len(errs) > 0 {
		t.Fatalf("DecodeArgs({}): %v", errs)
	}
	pl, err := reg.New(context.Background(), args)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, ok := pl.(framework.ScorePlugin); !ok {
		t.Errorf("New returned %T, not a ScorePlugin", pl)
	}
	_, errs = reg.DecodeArgs([]byte(`{"MaxSkew": 1}`), path)
	want := []string{`priorities[1].Args: Invalid value: "{\"MaxSkew\": 1}": json: unknown field "MaxSkew"`}
	if diff := cmp.Diff(want, plugintest.Errors(errs)); diff != "" {
		t.Errorf("DecodeArgs with an unknown field (-want +got):\n%s", diff)
	}
}

func TestProfile(t *testing.T) {
	prof, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{podfitsresources.New()},
		[]framework.WeightedScore{{Plugin: New(), Weight: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !prof.Grouped() {
		t.Error("profile is not evaluated by class")
	}
	// Capacity 3; pod 1 full with other sources; pods 0, 2 on n0 and 1, 3
	// on n1.
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(3).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0", "n1").Use(1, 3)
	}
	cases := []struct {
		name string
		src  *frameworktest.VPod
		n    int32
		want []vsched.Placement
	}{
		{
			// R=4: 100, 66, 33, 0; pod 0 fills, pod 1 is full, then pod 2.
			name: "packs the lowest ordinals",
			src:  plugintest.Source(0),
			n:    5,
			want: []vsched.Placement{
				plugintest.At(0, 3, "n0", "za"),
				plugintest.At(2, 2, "n0", "za"),
			},
		},
		{
			// Existing vreplicas on pod 3 stay; new ones go low.
			name: "ignores where the source already is",
			src:  plugintest.Source(0, frameworktest.P(3, 1)),
			n:    4,
			want: []vsched.Placement{
				plugintest.At(0, 3, "n0", "za"),
				plugintest.At(2, 1, "n0", "za"),
				plugintest.At(3, 1, "n1", "zb"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, got := plugintest.Run(t, newCluster, tc.src, prof, tc.n)
			if diff := cmp.Diff(framework.Result{Changed: tc.n}, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}
