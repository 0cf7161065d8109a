package config_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// exampleData is the design document's example config-scheduler: pod spread
// as a hard rule (EvenPodSpread, MaxSkew 2), zone spread as a priority
// (AvailabilityZonePriority 10, MaxSkew 2), then the lowest ordinal (2).
var exampleData = map[string]string{
	"predicates": `[{"Name":"PodFitsResources"},{"Name":"NoMaxResourceCount","Args":"{\"NumPartitions\": 100}"},{"Name":"EvenPodSpread","Args":"{\"MaxSkew\": 2}"}]`,
	"priorities": `[{"Name":"AvailabilityZonePriority","Weight":10,"Args":"{\"MaxSkew\": 2}"},{"Name":"LowestOrdinalPriority","Weight":2}]`,
}

func exampleProfiles(t *testing.T) *config.Profiles {
	t.Helper()
	sched, err := config.ParsePlaceConfigMapFromData(exampleData, inTree)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := config.BuildProfiles(context.Background(), inTree, sched, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// blockedZoneC is a cluster of capacity 10 where zone-a's eight pods
// (ordinals 0-7, node a1) come before zone-b's (8-15, b1) and zone-c has
// one pod (16, c1). The source holds one vreplica on five pods of zone-a
// and of zone-b, and two on zone-c's pod: zone-c holds the fewest (2
// against 5 and 5) and its pod has room, but the pod spread, a hard rule,
// rejects it (two above the empty pods), so zone-c can take nothing.
func blockedZoneC() (*frameworktest.Cluster, []vsched.Placement) {
	c := frameworktest.NewCluster(10).Node("a1", "zone-a").Node("b1", "zone-b").Node("c1", "zone-c")
	for i := 0; i < 8; i++ {
		c.Pods("a1")
	}
	for i := 0; i < 8; i++ {
		c.Pods("b1")
	}
	c.Pods("c1")
	var base []vsched.Placement
	for _, ord := range []int32{0, 1, 2, 3, 4, 8, 9, 10, 11, 12} {
		base = append(base, frameworktest.P(ord, 1))
	}
	base = append(base, frameworktest.P(16, 2))
	c.UsePlacements(base)
	return c, base
}

// The example profile keeps the zones that can take a vreplica within its
// MaxSkew of each other when a zone holding the fewest cannot take one.
func TestExampleProfileZonesWithRoom(t *testing.T) {
	tests := []struct {
		name  string
		n     int32
		zones map[string]int32
		want  map[int32]int32
	}{{
		// zone-a and zone-b both hold 5; with zone-c out of reach they
		// share the 6 evenly: 8 / 8, not the lowest ordinals' 11 / 5.
		// Within a zone the lowest ordinals that pass the pod spread
		// (1 more on a pod holding 1 is 2, within MaxSkew 2 of the
		// empty pods) come first.
		name: "6 more: zone-a and zone-b 8 / 8", n: 6,
		zones: map[string]int32{"zone-a": 8, "zone-b": 8, "zone-c": 2},
		want:  map[int32]int32{0: 2, 1: 2, 2: 2, 3: 1, 4: 1, 8: 2, 9: 2, 10: 2, 11: 1, 12: 1, 16: 2},
	}, {
		name: "1 more: the lowest ordinal of zone-a", n: 1,
		zones: map[string]int32{"zone-a": 6, "zone-b": 5, "zone-c": 2},
		want:  map[int32]int32{0: 2, 1: 1, 2: 1, 3: 1, 4: 1, 8: 1, 9: 1, 10: 1, 11: 1, 12: 1, 16: 2},
	}}
	ps := exampleProfiles(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, base := blockedZoneC()
			d := runAll(t, ps.Place, framework.Place, c, frameworktest.NewVPod("ns", "src", 0, base...), base, tc.n)
			got := placed(d.Placements())
			zones, _ := spreadOf(c, got)
			if diff := cmp.Diff(tc.zones, zones); diff != "" {
				t.Errorf("per zone (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}

// feasibleSteps runs p with an explanation on a fresh copy of the case for
// one vreplica more than asked, and returns per step the zones holding a pod
// that passed every filter, and per step the zone of the winner (-1: none).
// Step sc.n (0-based) is then the zones that could take one more once the
// sc.n asked for are placed.
func feasibleSteps(t *testing.T, p *framework.Profile, seed int64) (zones []map[int32]bool, winners []int32) {
	t.Helper()
	sc := randomSpreadCase(rand.New(rand.NewSource(seed)))
	d, err := framework.NewDecision(framework.Place, sc.cluster, frameworktest.NewVPod("ns", "src", 0, sc.base...), sc.base)
	if err != nil {
		t.Fatal(err)
	}
	var ex framework.Explanation
	if _, err := p.Run(context.Background(), d, sc.n+1, &ex); err != nil {
		t.Fatal(err)
	}
	for _, st := range ex.Steps {
		in := map[int32]bool{}
		for _, c := range st.Candidates {
			if info, ok := sc.cluster.Pod(c.Ordinal); ok && c.Feasible && info.ZoneIndex >= 0 {
				in[info.ZoneIndex] = true
			}
		}
		zones = append(zones, in)
		w := int32(-1)
		if info, ok := sc.cluster.Pod(st.Winner); ok && st.Winner >= 0 {
			w = info.ZoneIndex
		}
		winners = append(winners, w)
	}
	return zones, winners
}

// TestExampleProfileSpreadRandom is issue 21's goal for the example profile
// on random uneven clusters (randomSpreadCase): a zone can take a vreplica
// when one of its pods passes every filter (the hard pod spread included),
// and
//   - while every counted zone can, throughout the decision, and the zones'
//     room allows an even spread, the source ends within MaxSkew over them;
//   - the zones that could take a vreplica at every step and still can,
//     if they were within MaxSkew of each other before, still are (a zone
//     the hard pod spread closes for a while cannot take its share then,
//     which no priority can change).
func TestExampleProfileSpreadRandom(t *testing.T) {
	const maxSkew = 2
	ps := exampleProfiles(t)
	checked, roomChecked := 0, 0
	for seed := int64(1); seed <= 1000; seed++ {
		sc := randomSpreadCase(rand.New(rand.NewSource(seed)))
		d, err := framework.NewDecision(framework.Place, sc.cluster, frameworktest.NewVPod("ns", "src", 0, sc.base...), sc.base)
		if err != nil {
			t.Fatal(err)
		}
		on, free := zoneCounts(sc.cluster, d)
		counted := map[int32]bool{}
		for z := range on {
			counted[z] = true
		}
		res, err := ps.Place.Run(context.Background(), d, sc.n, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		after, _ := zoneCounts(sc.cluster, d)
		steps, winners := feasibleSteps(t, ps.Place, seed)
		// The explained run places as the fast path did.
		replay := map[int32]int32{}
		for z := range on {
			replay[z] = on[z]
		}
		for _, w := range winners[:min(int(res.Changed), len(winners))] {
			replay[w]++
		}
		if diff := cmp.Diff(after, replay); diff != "" {
			t.Fatalf("seed %d: the explained run placed otherwise (-run +explained):\n%s", seed, diff)
		}
		where := fmt.Sprintf("seed %d (%s; %d placed of %d; zones before %v free %v, after %v)",
			seed, sc.desc, res.Changed, sc.n, on, free, after)
		everyZone := true
		for _, in := range steps[:min(int(res.Changed), len(steps))] {
			for z := range counted {
				everyZone = everyZone && in[z]
			}
		}
		if everyZone && evenest(on, free, counted, sc.n) <= maxSkew {
			checked++
			if got := skewIn(after, counted); got > maxSkew {
				t.Errorf("%s: zone skew %d above MaxSkew %d while every zone could take a vreplica", where, got, maxSkew)
			}
		}
		// The zones that could take a vreplica at every step and still can.
		room := map[int32]bool{}
		if int(res.Changed) < len(steps) {
			for z := range steps[res.Changed] {
				room[z] = true
			}
		}
		for _, in := range steps[:min(int(res.Changed), len(steps))] {
			for z := range room {
				room[z] = room[z] && in[z]
			}
		}
		for z, ok := range room {
			if !ok {
				delete(room, z)
			}
		}
		if len(room) > 1 && skewIn(on, room) <= maxSkew {
			roomChecked++
			if got := skewIn(after, room); got > maxSkew {
				t.Errorf("%s: zone skew %d over the zones that can take a vreplica %v, above MaxSkew %d", where, got, room, maxSkew)
			}
		}
	}
	if checked < 50 || roomChecked < 50 {
		t.Errorf("only %d cases where every zone could take a vreplica, %d with zones to compare", checked, roomChecked)
	}
}
