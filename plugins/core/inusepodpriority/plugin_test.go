package inusepodpriority

import (
	"github.com/google/go-cmp/cmp"

	"context"
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/evenpodspread"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

// threePods is one node's three empty pods of capacity 10.
func threePods() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "za").Pods("n0", "n0", "n0")
}

func TestScore(t *testing.T) {
	p := frameworktest.P
	cases := []plugintest.Scoring{
		{Name: "every pod empty", Cluster: threePods(), Src: plugintest.Source(0), Plugin: New(), Want: map[int32]int64{0: 0, 1: 0, 2: 0}},
		// Pod 1 holds 3 of other sources, pod 2 is full: both in use.
		{Name: "pods in use by other sources", Cluster: threePods().Use(1, 3).Use(2, 10), Src: plugintest.Source(0), Plugin: New(), Want: map[int32]int64{0: 0, 1: 100, 2: 100}},
		// Pod 2 holds only the source's own vreplicas: in use as well.
		{Name: "a pod holding only the source", Cluster: threePods().Use(2, 1), Src: plugintest.Source(0, p(2, 1)), Plugin: New(), Want: map[int32]int64{0: 0, 1: 0, 2: 100}},
	}
	plugintest.ExpectScores(t, cases)
}

func TestRegistration(t *testing.T) {
	reg := Spec.Registration()
	plugintest.ExpectRegistration(t, reg, plugintest.Registered{Name: Name, Kinds: framework.KindScore, Modes: framework.ForPlace})
	p := New()
	if p.Name() != Name || !p.EquivalentWithinClass() {
		t.Errorf("Name %q, EquivalentWithinClass %v", p.Name(), p.EquivalentWithinClass())
	}
	pl, err := reg.New(context.Background(), &framework.NoArgs{})
	if _, ok := pl.(*Plugin); !ok || err != nil {
		t.Errorf("New = %T, %v; want a *Plugin", pl, err)
	}
}

// TestProfile runs the plugin above EvenPodSpread (weights 2 and 1, as in
// the default policy): a pod in use with room comes before an empty pod
// whatever the pod spread, and the pod spread decides among pods in use.
func TestProfile(t *testing.T) {
	spread := plugintest.Build(t, evenpodspread.New, nil)
	prof := plugintest.GroupedProfile(t,
		[]framework.FilterPlugin{podfitsresources.New()},
		[]framework.WeightedScore{{Plugin: New(), Weight: 2}, {Plugin: spread, Weight: 1}})
	// Capacity 4, one node: pods 0 and 3 empty, pod 1 holds 1 and pod 2
	// holds 2 of other sources.
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(4).Node("n0", "za").Pods("n0", "n0", "n0", "n0").Use(1, 1).Use(2, 2)
	}
	cases := []plugintest.Placing{
		{
			// Pods 2 then 1 (the fuller first), then alternating by pod
			// spread until both are full (2 free + 3 free = 5); only
			// then pod 0 opens, lowest ordinal first.
			Name:       "pods in use fill before an empty one opens",
			Cluster:    newCluster,
			Src:        plugintest.Source(0),
			N:          7,
			WantResult: framework.Result{Changed: 7},
			Want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 3, "n0", "za"),
				plugintest.At(2, 2, "n0", "za"),
			},
		},
		{
			// One vreplica each on 2 and 1: pod spread, among pods in use.
			Name:       "pod spread among pods in use",
			Cluster:    newCluster,
			Src:        plugintest.Source(0),
			N:          2,
			WantResult: framework.Result{Changed: 2},
			Want: []vsched.Placement{
				plugintest.At(1, 1, "n0", "za"),
				plugintest.At(2, 1, "n0", "za"),
			},
		},
	}
	plugintest.ExpectPlacing(t, prof, cases)
}

// TestScoreStrands checks that a pod in use where a vreplica with a cost
// would strand slots (framework.Decision.Strands) scores as an empty pod:
// pods of 20 slots and 4Gi, pod 0 holding 12 slots and 3000Mi, pod 1 12
// slots and 2000Mi, pod 2 nothing; the cheapest source costs 100Mi.
func TestScoreStrands(t *testing.T) {
	cases := []struct {
		name, cost string
		want       map[int32]int64
	}{
		// Pod 0 after: 7 slots free, 96Mi: none for a 100Mi vreplica.
		{name: "heavy", cost: "1000Mi", want: map[int32]int64{0: 0, 1: 100, 2: 0}},
		{name: "light", cost: "100Mi", want: map[int32]int64{0: 100, 1: 100, 2: 0}},
		{name: "no cost", want: map[int32]int64{0: 100, 1: 100, 2: 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := frameworktest.WithResources(frameworktest.NewCluster(20).Node("n0", "za").Pods("n0", "n0", "n0").Use(0, 12).Use(1, 12),
				frameworktest.Resources("memory", "4Gi")).
				UseResources(0, frameworktest.Resources("memory", "3000Mi")).
				UseResources(1, frameworktest.Resources("memory", "2000Mi")).
				Cheapest(frameworktest.Resources("memory", "100Mi"))
			src := frameworktest.NewVPod("ns", "s", 1)
			if tc.cost != "" {
				c.Cost(src.Key, frameworktest.Resources("memory", tc.cost))
			}
			d, err := framework.NewDecision(framework.Place, c, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int32]int64{}
			for ord := int32(0); ord < 3; ord++ {
				sc, st := New().Score(context.Background(), d, ord)
				if !st.IsSuccess() {
					t.Fatal(st)
				}
				got[ord] = sc
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}
