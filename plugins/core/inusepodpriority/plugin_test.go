package inusepodpriority

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

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
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		src     *frameworktest.VPod
		want    map[int32]int64
	}{
		{name: "every pod empty", cluster: threePods(), src: plugintest.Source(0), want: map[int32]int64{0: 0, 1: 0, 2: 0}},
		// Pod 1 holds 3 of other sources, pod 2 is full: both in use.
		{name: "pods in use by other sources", cluster: threePods().Use(1, 3).Use(2, 10), src: plugintest.Source(0), want: map[int32]int64{0: 0, 1: 100, 2: 100}},
		// Pod 2 holds only the source's own vreplicas: in use as well.
		{name: "a pod holding only the source", cluster: threePods().Use(2, 1), src: plugintest.Source(0, p(2, 1)), want: map[int32]int64{0: 0, 1: 0, 2: 100}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, tc.src)
			got := plugintest.Scores(t, New(), d)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
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
	pl, err := reg.New(context.Background(), &framework.NoArgs{})
	if _, ok := pl.(*Plugin); !ok || err != nil {
		t.Errorf("New = %T, %v; want a *Plugin", pl, err)
	}
}

// TestProfile runs the plugin above EvenPodSpread (weights 2 and 1, as in
// the default policy): a pod in use with room comes before an empty pod
// whatever the pod spread, and the pod spread decides among pods in use.
func TestProfile(t *testing.T) {
	spread, err := evenpodspread.New(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{podfitsresources.New()},
		[]framework.WeightedScore{{Plugin: New(), Weight: 2}, {Plugin: spread, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !prof.Grouped() {
		t.Error("profile is not evaluated by class")
	}
	// Capacity 4, one node: pods 0 and 3 empty, pod 1 holds 1 and pod 2
	// holds 2 of other sources.
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(4).Node("n0", "za").Pods("n0", "n0", "n0", "n0").Use(1, 1).Use(2, 2)
	}
	cases := []struct {
		name string
		n    int32
		want []vsched.Placement
	}{
		{
			// Pods 2 then 1 (the fuller first), then alternating by pod
			// spread until both are full (2 free + 3 free = 5); only
			// then pod 0 opens, lowest ordinal first.
			name: "pods in use fill before an empty one opens",
			n:    7,
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 3, "n0", "za"),
				plugintest.At(2, 2, "n0", "za"),
			},
		},
		{
			// One vreplica each on 2 and 1: pod spread, among pods in use.
			name: "pod spread among pods in use",
			n:    2,
			want: []vsched.Placement{
				plugintest.At(1, 1, "n0", "za"),
				plugintest.At(2, 1, "n0", "za"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, got := plugintest.Run(t, newCluster, plugintest.Source(0), prof, tc.n)
			if diff := cmp.Diff(framework.Result{Changed: tc.n}, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}
