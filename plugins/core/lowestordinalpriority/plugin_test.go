package lowestordinalpriority

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

// pods returns a cluster of n pods of capacity 10 on one node.
func pods(n int) *frameworktest.Cluster { return plugintest.OnOneNode(n, "za") }

func TestScore(t *testing.T) {
	cases := []plugintest.Scoring{
		// R=1: MaxScore
		{Name: "one pod", Cluster: pods(1), Src: plugintest.Source(0), Plugin: New(), Want: map[int32]int64{0: 100}},
		// R=2: 100*(1-o)/1
		{Name: "two pods", Cluster: pods(2), Src: plugintest.Source(0), Plugin: New(), Want: map[int32]int64{0: 100, 1: 0}},
		// R=4: 100*(3-o)/3 = 100, 66, 33, 0
		{Name: "four pods", Cluster: pods(4), Src: plugintest.Source(0), Plugin: New(), Want: map[int32]int64{0: 100, 1: 66, 2: 33, 3: 0}},
		// R=5: 100*(4-o)/4 = 100, 75, 50, 25, 0
		{Name: "five pods", Cluster: pods(5), Src: plugintest.Source(0), Plugin: New(), Want: map[int32]int64{0: 100, 1: 75, 2: 50, 3: 25, 4: 0}},
		// R=5 with pods 0 and 2 not candidates: the others keep their scores
		{Name: "non-candidates leave scores alone", Cluster: pods(5).Drain(0).Remove(2), Src: plugintest.Source(0), Plugin: New(), Want: map[int32]int64{1: 75, 3: 25, 4: 0}},
	}
	plugintest.ExpectScores(t, cases)
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
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{Name: Name, Kinds: framework.KindScore, Modes: framework.ForPlace})
	p := New()
	if p.Name() != Name || !p.EquivalentWithinClass() {
		t.Errorf("Name %q, EquivalentWithinClass %v", p.Name(), p.EquivalentWithinClass())
	}
	plugintest.ExpectNoArgs(t, Spec, field.NewPath("priorities").Index(1).Child("Args"), `{"MaxSkew": 1}`,
		`priorities[1].Args: Invalid value: "{\"MaxSkew\": 1}": json: unknown field "MaxSkew"`,
		func(t *testing.T, pl framework.Plugin) {
			if _, ok := pl.(framework.ScorePlugin); !ok {
				t.Errorf("New returned %T, not a ScorePlugin", pl)
			}
		})
}

func TestProfile(t *testing.T) {
	prof := plugintest.GroupedProfile(t,
		[]framework.FilterPlugin{podfitsresources.New()},
		[]framework.WeightedScore{{Plugin: New(), Weight: 2}})
	// Capacity 3; pod 1 full with other sources; pods 0, 2 on n0 and 1, 3
	// on n1.
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(3).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0", "n1").Use(1, 3)
	}
	cases := []plugintest.Placing{
		{
			// R=4: 100, 66, 33, 0; pod 0 fills, pod 1 is full, then pod 2.
			Name:       "packs the lowest ordinals",
			Cluster:    newCluster,
			Src:        plugintest.Source(0),
			N:          5,
			WantResult: framework.Result{Changed: 5},
			Want: []vsched.Placement{
				plugintest.At(0, 3, "n0", "za"),
				plugintest.At(2, 2, "n0", "za"),
			},
		},
		{
			// Existing vreplicas on pod 3 stay; new ones go low.
			Name:       "ignores where the source already is",
			Cluster:    newCluster,
			Src:        plugintest.Source(0, frameworktest.P(3, 1)),
			N:          4,
			WantResult: framework.Result{Changed: 4},
			Want: []vsched.Placement{
				plugintest.At(0, 3, "n0", "za"),
				plugintest.At(2, 1, "n0", "za"),
				plugintest.At(3, 1, "n1", "zb"),
			},
		},
	}
	plugintest.ExpectPlacing(t, prof, cases)
}
