package evenzonespread

import (
	"context"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

// sixPods has two pods per zone: 0,3 in a; 1,4 in b; 2,5 in c.
func sixPods() *frameworktest.Cluster { return threeZones().Pods("na", "nb", "nc") }

func TestMisplaced(t *testing.T) {
	p := frameworktest.P
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		src     *frameworktest.VPod
		maxSkew int32
		want    int32 // -1: none
	}{
		{name: "even", cluster: sixPods(), src: plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)), maxSkew: 1, want: -1},
		{name: "within MaxSkew", cluster: sixPods(), src: plugintest.Source(0, p(0, 1), p(1, 1)), maxSkew: 1, want: -1},
		{
			// 2 2 0 after zone-c came back: the highest ordinal of a
			// most-loaded zone.
			name: "zone back: highest ordinal in a fullest zone", cluster: sixPods(),
			src: plugintest.Source(0, p(0, 1), p(3, 1), p(1, 1), p(4, 1)), maxSkew: 1, want: 4,
		},
		{
			// 3 1 0: only zone-a is at the most.
			name: "only the most-loaded zone", cluster: sixPods(),
			src: plugintest.Source(0, p(0, 2), p(4, 1), p(3, 1)), maxSkew: 1, want: 3,
		},
		{name: "larger MaxSkew", cluster: sixPods(), src: plugintest.Source(0, p(0, 1), p(3, 1), p(1, 1), p(4, 1)), maxSkew: 2, want: -1},
		{
			// zone-c's only node is cordoned: it does not count, 2 2.
			name: "a cordoned zone does not count", cluster: sixPods().Cordon("nc"),
			src: plugintest.Source(0, p(0, 1), p(3, 1), p(1, 1), p(4, 1)), maxSkew: 1, want: -1,
		},
		{
			// 0 0 4 in zone-c, which is cordoned: a and b count, 0 0.
			name: "vreplicas in an uncounted zone are not misplaced", cluster: sixPods().Cordon("nc"),
			src: plugintest.Source(0, p(2, 2), p(5, 2)), maxSkew: 1, want: -1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, tc.src)
			got, ok := mustNew(t, tc.maxSkew).Misplaced(context.Background(), d)
			if !ok {
				got = -1
			}
			if got != tc.want {
				t.Errorf("Misplaced = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRebalance(t *testing.T) {
	prof := packProfile(t)
	if !prof.Rebalances() {
		t.Fatal("a profile with EvenZoneSpread does not rebalance")
	}
	p := frameworktest.P
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		src     *frameworktest.VPod
		limit   int32
		want    framework.RebalanceResult
		wantPs  []vsched.Placement
	}{
		{
			// 3 3 0: one from each of a and b, highest ordinals first,
			// to zone-c's lowest ordinal.
			name:    "zone back: evened out",
			cluster: sixPods(),
			src:     plugintest.Source(0, p(0, 2), p(3, 1), p(1, 2), p(4, 1)),
			limit:   10,
			want:    framework.RebalanceResult{Moved: 2, Plugin: Name},
			wantPs: []vsched.Placement{
				plugintest.At(0, 2, "na", "zone-a"),
				plugintest.At(1, 2, "nb", "zone-b"),
				plugintest.At(2, 2, "nc", "zone-c"),
			},
		},
		{
			name:    "the limit bounds the moves",
			cluster: sixPods(),
			src:     plugintest.Source(0, p(0, 2), p(3, 1), p(1, 2), p(4, 1)),
			limit:   1,
			want:    framework.RebalanceResult{Moved: 1, Plugin: Name},
			wantPs: []vsched.Placement{
				plugintest.At(0, 2, "na", "zone-a"),
				plugintest.At(1, 2, "nb", "zone-b"),
				plugintest.At(2, 1, "nc", "zone-c"),
				plugintest.At(3, 1, "na", "zone-a"),
			},
		},
		{
			name:    "even: nothing moves",
			cluster: sixPods(),
			src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			limit:   10,
			want:    framework.RebalanceResult{},
			wantPs: []vsched.Placement{
				plugintest.At(0, 1, "na", "zone-a"),
				plugintest.At(1, 1, "nb", "zone-b"),
				plugintest.At(2, 1, "nc", "zone-c"),
			},
		},
		{
			// zone-c's pods are full: the vreplica stays.
			name:    "no room in the zone that lacks",
			cluster: sixPods().Use(2, 10).Use(5, 10),
			src:     plugintest.Source(0, p(0, 1), p(3, 1), p(1, 1), p(4, 1)),
			limit:   10,
			want: framework.RebalanceResult{Plugin: Name, Stuck: `EvenZoneSpread asked to move a vreplica off adapter-4, but no other pod takes it: ` +
				`bound by EvenZoneSpread, which rejected 4 pod(s) that have room; 6 candidate pod(s): EvenZoneSpread rejected 4 pod(s) (e.g. "zone zone-a holds 2 of the source's vreplicas; ` +
				`one more would make the skew across zones 3, above MaxSkew 1 (fewest: 0, in zone-c (full: it bounds the source))"); ` +
				`PodFitsResources rejected 2 pod(s) (e.g. "pod adapter-2 is full (10/10 vreplicas)")`},
			wantPs: []vsched.Placement{
				plugintest.At(0, 1, "na", "zone-a"),
				plugintest.At(1, 1, "nb", "zone-b"),
				plugintest.At(3, 1, "na", "zone-a"),
				plugintest.At(4, 1, "nb", "zone-b"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, tc.src)
			res, err := prof.Rebalance(context.Background(), d, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPs, d.Placements()); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
			if got, want := d.Total(), tc.src.GetVReplicas(); got != want {
				t.Errorf("total %d after rebalancing, want %d: a vreplica was lost or duplicated", got, want)
			}
		})
	}
}

// A profile without a Rebalancer, or a Remove one, does not rebalance.
func TestRebalanceNeedsARebalancer(t *testing.T) {
	prof, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{podfitsresources.New()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if prof.Rebalances() {
		t.Error("PodFitsResources alone rebalances")
	}
	d := plugintest.Decide(t, sixPods(), plugintest.Source(0, frameworktest.P(0, 3)))
	if res, err := prof.Rebalance(context.Background(), d, 5); err != nil || res != (framework.RebalanceResult{}) {
		t.Errorf("Rebalance = %+v, %v; want nothing done", res, err)
	}
	rm, err := framework.NewProfile(framework.Remove, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rm.Rebalance(context.Background(), d, 5); err == nil {
		t.Error("a Remove profile rebalanced")
	}
}

// ZoneBalanced keeps framework.ZoneRebalancer's promise, and says no more:
// on random clusters and placements it finds a source balanced exactly when
// Misplaced names no pod.
func TestZoneBalancedAgreesWithMisplaced(t *testing.T) {
	var balanced, uneven int
	for seed := int64(1); seed <= 400; seed++ {
		sc := frameworktest.RandomScenario(rand.New(rand.NewSource(seed)))
		vp := frameworktest.NewVPod("ns", "src", vsched.TotalVReplicas(sc.Base), sc.Base...)
		d, err := framework.NewDecision(framework.Place, sc.Cluster, vp, sc.Base)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		onZone := make([]int32, sc.Cluster.NumZones())
		for z := range onZone {
			onZone[z] = d.OnZone(int32(z))
		}
		for _, skew := range []int32{1, 2} {
			pl := mustNew(t, skew)
			_, misplaced := pl.Misplaced(context.Background(), d)
			got := pl.ZoneBalanced(sc.Cluster, onZone)
			if got == misplaced {
				t.Errorf("seed %d, MaxSkew %d: ZoneBalanced = %v and Misplaced names a pod = %v (zones %v)", seed, skew, got, misplaced, onZone)
			}
			if got {
				balanced++
			} else {
				uneven++
			}
		}
	}
	if balanced == 0 || uneven == 0 {
		t.Fatalf("%d balanced and %d uneven cases: the scenarios do not test both answers", balanced, uneven)
	}
}
