package config_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// spreadCase is a random cluster of three zones whose node counts differ,
// partly filled by other sources, maybe with a zone full or cordoned, and a
// source with some vreplicas already placed that asks for more.
type spreadCase struct {
	cluster *frameworktest.Cluster
	base    []vsched.Placement
	n       int32
	desc    string
}

func randomSpreadCase(rng *rand.Rand) spreadCase {
	capacity := int32(2 + rng.Intn(9))
	c := frameworktest.NewCluster(capacity)
	var nodes []string
	for z := 0; z < 3; z++ {
		for i := 0; i <= rng.Intn(4); i++ {
			name := fmt.Sprintf("n%c%d", 'a'+z, i)
			c.Node(name, fmt.Sprintf("zone-%c", 'a'+z))
			nodes = append(nodes, name)
		}
	}
	pods := len(nodes) * (1 + rng.Intn(3))
	for i := 0; i < pods; i++ {
		c.Pods(nodes[i%len(nodes)])
	}
	used := make([]int32, pods)
	for i := range used {
		if rng.Intn(3) == 0 {
			used[i] = int32(rng.Intn(int(capacity) + 1))
		}
	}
	desc := fmt.Sprintf("capacity %d, %d nodes, %d pods", capacity, len(nodes), pods)
	switch rng.Intn(4) {
	case 0: // a zone full of other sources
		z := byte('a' + rng.Intn(3))
		for i := range used {
			if nodes[i%len(nodes)][1] == z {
				used[i] = capacity
			}
		}
		desc += fmt.Sprintf(", zone-%c full", z)
	case 1: // a zone's nodes cordoned (or failed)
		z := byte('a' + rng.Intn(3))
		for _, n := range nodes {
			if n[1] == z {
				c.Cordon(n)
			}
		}
		desc += fmt.Sprintf(", zone-%c cordoned", z)
	}
	var base []vsched.Placement
	for i := range used {
		if free := capacity - used[i]; free > 0 && rng.Intn(4) == 0 {
			k := int32(1 + rng.Intn(int(free)))
			base = append(base, frameworktest.P(int32(i), k))
			used[i] += k
		}
	}
	for i, u := range used {
		c.Use(int32(i), u)
	}
	return spreadCase{cluster: c, base: base, n: int32(1 + rng.Intn(3*pods)), desc: desc}
}

// zoneCounts is the source's vreplicas and the free room per counted zone.
func zoneCounts(c framework.Cluster, d *framework.Decision) (on, free map[int32]int32) {
	on, free = map[int32]int32{}, map[int32]int32{}
	for _, z := range c.SchedulableZones() {
		on[z] = d.OnZone(z)
		free[z] = 0
	}
	for _, ord := range c.Candidates() {
		if info, ok := c.Pod(ord); ok && info.ZoneIndex >= 0 {
			free[info.ZoneIndex] += max(d.Free(ord), 0)
		}
	}
	return on, free
}

// evenest is the smallest zone skew over the zones in that adding n
// vreplicas can reach, one at a time to the least loaded zone with room,
// moving none.
func evenest(on, free map[int32]int32, in map[int32]bool, n int32) int32 {
	cur := map[int32]int32{}
	left := map[int32]int32{}
	for z := range in {
		cur[z], left[z] = on[z], free[z]
	}
	for ; n > 0; n-- {
		pick := int32(-1)
		for z := range in {
			if left[z] > 0 && (pick < 0 || cur[z] < cur[pick] || (cur[z] == cur[pick] && z < pick)) {
				pick = z
			}
		}
		if pick < 0 {
			break
		}
		cur[pick]++
		left[pick]--
	}
	return skewIn(cur, in)
}

func skewIn(on map[int32]int32, in map[int32]bool) int32 {
	first := true
	var lo, hi int32
	for z := range in {
		if first {
			lo, hi, first = on[z], on[z], false
		}
		lo, hi = min(lo, on[z]), max(hi, on[z])
	}
	return hi - lo
}

// TestSpreadGoalsRandom is issue 11's spread goals on random uneven
// clusters, for the default policy and the Kafka HA profile: whenever the
// zones' room allows the source to end within MaxSkew over the counted
// zones, it does; and the zones that still have room afterwards stay within
// MaxSkew of each other if they were before (a zone filling up, or full,
// does not unbalance the rest). The default policy also opens a pod on a
// node only when the node's pods in use are full (openedOnlyWhenFull).
func TestSpreadGoalsRandom(t *testing.T) {
	ha, err := config.ParsePlaceConfigMapFromData(map[string]string{
		"predicates": `[{"Name":"PodFitsResources"},{"Name":"NoMaxResourceCount","Args":"{\"NumPartitions\": 100}"}]`,
		"priorities": `[{"Name":"AvailabilityZonePriority","Weight":10,"Args":"{\"MaxSkew\": 2}"},{"Name":"LowestOrdinalPriority","Weight":2},{"Name":"EvenPodSpread","Weight":2,"Args":"{\"MaxSkew\": 2}"}]`,
	}, inTree)
	if err != nil {
		t.Fatal(err)
	}
	for _, prof := range []struct {
		name    string
		sched   *config.PlaceConfig
		maxSkew int32
		packs   bool
	}{{"default", nil, 1, true}, {"kafkaHA", ha, 2, false}} {
		ps, err := config.BuildProfiles(context.Background(), inTree, prof.sched, nil)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for seed := int64(1); seed <= 500; seed++ {
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
				t.Fatalf("%s seed %d: %v", prof.name, seed, err)
			}
			after, freeAfter := zoneCounts(sc.cluster, d)
			room := map[int32]bool{}
			for z := range after {
				if freeAfter[z] > 0 {
					room[z] = true
				}
			}
			where := fmt.Sprintf("%s seed %d (%s; %d placed of %d; zones before %v free %v, after %v)",
				prof.name, seed, sc.desc, res.Changed, sc.n, on, free, after)
			if evenest(on, free, counted, sc.n) <= prof.maxSkew {
				checked++
				if got := skewIn(after, counted); got > prof.maxSkew {
					t.Errorf("%s: zone skew %d above MaxSkew %d, which the room allowed", where, got, prof.maxSkew)
				}
			}
			// The default policy packs before it spreads over pods.
			if prof.packs {
				if err := openedOnlyWhenFull(sc.cluster, d); err != nil {
					t.Errorf("%s: %v", where, err)
				}
			}
			// The zones that still have room were within MaxSkew of each
			// other: whatever filled up, they still are.
			if skewIn(on, room) <= prof.maxSkew {
				if got := skewIn(after, room); got > prof.maxSkew {
					t.Errorf("%s: zone skew %d over the zones with room, above MaxSkew %d", where, got, prof.maxSkew)
				}
			}
		}
		if checked < 100 {
			t.Errorf("%s: only %d cases where the room allowed an even spread", prof.name, checked)
		}
	}
}
