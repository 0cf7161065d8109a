package config_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// threeZones is a StatefulSet of 9 pods over 3 zones of 2 nodes each, laid
// out as anti-affinity lays it out: ordinals 0-2 on a1, b1, c1, then 3-5 on
// a2, b2, c2, then 6-8 on a1, b1, c1 again.
func threeZones() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).
		Node("a1", "zone-a").Node("b1", "zone-b").Node("c1", "zone-c").
		Node("a2", "zone-a").Node("b2", "zone-b").Node("c2", "zone-c").
		Pods("a1", "b1", "c1", "a2", "b2", "c2", "a1", "b1", "c1")
}

// placed is the placements as counts per ordinal.
func placed(ps []vsched.Placement) map[int32]int32 {
	out := map[int32]int32{}
	for _, p := range ps {
		ord, _ := vsched.OrdinalFromPodName(p.PodName)
		out[ord] = p.VReplicas
	}
	return out
}

// The default policy spreads over zones, then nodes, then fills a node's
// pods in use before it opens an empty one, and takes the lowest ordinals
// among equally good pods.
func TestDefaultPolicyPlacements(t *testing.T) {
	tests := []struct {
		name      string
		cluster   *frameworktest.Cluster
		vreplicas int32
		want      map[int32]int32 // ordinal -> vreplicas
	}{{
		name: "one vreplica: lowest ordinal", cluster: threeZones(), vreplicas: 1,
		want: map[int32]int32{0: 1},
	}, {
		name: "three: one per zone", cluster: threeZones(), vreplicas: 3,
		want: map[int32]int32{0: 1, 1: 1, 2: 1},
	}, {
		name: "four: the fourth on the other node of zone-a", cluster: threeZones(), vreplicas: 4,
		want: map[int32]int32{0: 1, 1: 1, 2: 1, 3: 1},
	}, {
		name: "seven: one per node, then the lowest pod in use", cluster: threeZones(), vreplicas: 7,
		want: map[int32]int32{0: 2, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1},
	}, {
		name: "twelve: nodes stay even, each node's share in one pod", cluster: threeZones(), vreplicas: 12,
		want: map[int32]int32{0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2},
	}, {
		name: "one node per zone: a zone's share in one pod", vreplicas: 4,
		cluster: frameworktest.NewCluster(10).Node("a1", "zone-a").Node("b1", "zone-b").Node("c1", "zone-c").
			Pods("a1", "a1", "b1", "b1", "c1", "c1"),
		want: map[int32]int32{0: 2, 2: 1, 4: 1},
	}, {
		name: "a cordoned zone is left out", cluster: threeZones().Cordon("c1").Cordon("c2"), vreplicas: 4,
		want: map[int32]int32{0: 1, 1: 1, 3: 1, 4: 1},
	}, {
		name: "full pods are skipped", cluster: threeZones().Use(0, 10).Use(1, 10), vreplicas: 3,
		want: map[int32]int32{2: 1, 3: 1, 4: 1},
	}}
	ps := defaultProfiles(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := runAll(t, ps.Place, framework.Place, tc.cluster, frameworktest.NewVPod("ns", "src", tc.vreplicas), nil, tc.vreplicas)
			if diff := cmp.Diff(tc.want, placed(d.Placements())); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}

// The default descheduler policy removes from the fullest zone, node and pod,
// then from the highest ordinal.
func TestDefaultPolicyRemovals(t *testing.T) {
	base := []vsched.Placement{
		frameworktest.P(0, 2), frameworktest.P(1, 2), frameworktest.P(2, 2),
		frameworktest.P(3, 1), frameworktest.P(4, 1), frameworktest.P(5, 1),
	}
	tests := []struct {
		name   string
		remove int32
		want   map[int32]int32
	}{
		{name: "one: the highest of the fullest pods", remove: 1, want: map[int32]int32{0: 2, 1: 2, 2: 1, 3: 1, 4: 1, 5: 1}},
		{name: "three: back to one per pod", remove: 3, want: map[int32]int32{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1}},
		{name: "five: zones stay within one", remove: 5, want: map[int32]int32{0: 1, 1: 1, 2: 1, 3: 1}},
	}
	ps := defaultProfiles(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := runAll(t, ps.Remove, framework.Remove, threeZones().UsePlacements(base), frameworktest.NewVPod("ns", "src", 9-tc.remove, base...), base, tc.remove)
			if diff := cmp.Diff(tc.want, placed(d.Placements())); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}

// defaultProfiles builds the default policy's profiles.
func defaultProfiles(t *testing.T) *config.Profiles {
	t.Helper()
	ps, err := config.BuildProfiles(context.Background(), inTree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// runAll runs profile p on a decision of mode about src, from the
// placements before, asking it to place (or remove) n; all n must change.
func runAll(t *testing.T, p *framework.Profile, mode framework.Mode, c framework.Cluster, src vsched.VPod, before []vsched.Placement, n int32) *framework.Decision {
	t.Helper()
	d, err := framework.NewDecision(mode, c, src, before)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), d, n, nil)
	if err != nil || res.Changed != n {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	return d
}
