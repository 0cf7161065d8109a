package descheduler

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// zoneHard keeps every source within one vreplica of even over the zones.
var zoneHard = map[string]string{
	"predicates": `[{"Name":"PodFitsResources"},{"Name":"EvenZoneSpread","Args":{"MaxSkew":1}}]`,
}

// zone-c came back after its pods were down: the source holds 3 in
// zone-a (pods 0 and 3) and 3 in zone-b (pods 1 and 4). EvenZoneSpread
// names the highest ordinal in a fullest zone, and each move goes to
// zone-c, the lowest ordinal first among the pods equally good.
func TestRebalance(t *testing.T) {
	p := frameworktest.P
	place := profiles(t, zoneHard).Place
	placements := []vsched.Placement{p(0, 2), p(1, 2), p(3, 1), p(4, 1)}
	tests := []struct {
		name      string
		limit     int32
		want      string
		wantMoved int32
		wantLimit int32
	}{
		{name: "within a limit of one", limit: 1, want: "0:2 1:2 2:1 3:1", wantMoved: 1, wantLimit: 1},
		{name: "until even", limit: 5, want: "0:2 1:2 2:1 5:1", wantMoved: 2, wantLimit: 5},
		{name: "no limit: the source's vreplicas", limit: 0, want: "0:2 1:2 2:1 5:1", wantMoved: 2, wantLimit: 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := sixPods().UsePlacements(placements)
			vpod := frameworktest.NewVPod("ns", "src", 6, placements...)
			got, err := Rebalance(context.Background(), place, c, vpod, placements, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if short(got.Placements) != tc.want || got.Moved != tc.wantMoved || got.Limit != tc.wantLimit || got.Plugin != "EvenZoneSpread" {
				t.Errorf("Rebalance = [%s] moved %d limit %d by %q; want [%s] moved %d limit %d by EvenZoneSpread",
					short(got.Placements), got.Moved, got.Limit, got.Plugin, tc.want, tc.wantMoved, tc.wantLimit)
			}
			if short(placements) != "0:2 1:2 3:1 4:1" {
				t.Errorf("placements modified: [%s]", short(placements))
			}
		})
	}
}

// A move with nowhere to go leaves the placements as they were and says
// why.
func TestRebalanceStuck(t *testing.T) {
	p := frameworktest.P
	placements := []vsched.Placement{p(0, 2), p(1, 2), p(3, 1), p(4, 1)}
	// zone-c's pods are full of other sources.
	c := sixPods().UsePlacements(placements).Use(2, 10).Use(5, 10)
	got, err := Rebalance(context.Background(), profiles(t, zoneHard).Place, c, frameworktest.NewVPod("ns", "src", 6, placements...), placements, 3)
	if err != nil {
		t.Fatal(err)
	}
	if short(got.Placements) != "0:2 1:2 3:1 4:1" || got.Moved != 0 || got.Stuck == "" {
		t.Errorf("Rebalance = [%s] moved %d stuck %q; want the placements as given, nothing moved, and why", short(got.Placements), got.Moved, got.Stuck)
	}
}

func TestWantsRebalance(t *testing.T) {
	p := frameworktest.P
	zoned, plain := profiles(t, zoneHard).Place, profiles(t, nil).Place
	kept := []vsched.Placement{p(0, 2), p(1, 2)}
	tests := []struct {
		name    string
		place   *framework.Profile
		split   Split
		desired int32
		want    bool
	}{
		{name: "kept", place: zoned, split: Split{Kept: kept}, desired: 4, want: true},
		{name: "shrunk", place: zoned, split: Split{Kept: kept}, desired: 1, want: true},
		{name: "no Rebalancer", place: plain, split: Split{Kept: kept}, desired: 4},
		{name: "no profile", split: Split{Kept: kept}, desired: 4},
		{name: "growing", place: zoned, split: Split{Kept: kept}, desired: 5},
		{name: "to nothing", place: zoned, split: Split{Kept: kept}},
		{name: "moving off a draining pod", place: zoned, split: Split{Kept: kept, Draining: []vsched.Placement{p(3, 1)}}, desired: 4},
		{name: "moving off a lost pod", place: zoned, split: Split{Kept: kept, Lost: 1}, desired: 4},
	}
	var got, want []string
	for _, tc := range tests {
		if WantsRebalance(tc.place, tc.split, tc.desired) {
			got = append(got, tc.name)
		}
		if tc.want {
			want = append(want, tc.name)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sources to rebalance (-want +got):\n%s", d)
	}
}
