package framework_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

func skewWith(values []int32, i int, delta int32) int32 {
	v := slices.Clone(values)
	v[i] += delta
	return slices.Max(v) - slices.Min(v)
}

// recount derives from scratch, through the Cluster and OnPod only, what
// the Decision keeps incrementally.
func recount(d *framework.Decision) (nonHolder int, pods, nodes, zones []int32) {
	c := d.Cluster()
	for _, ord := range c.Candidates() {
		switch {
		case d.OnPod(ord) > 0:
			pods = append(pods, d.OnPod(ord))
		case d.Free(ord) > 0:
			nonHolder++
			pods = append(pods, 0)
		}
	}
	onNode := make([]int32, c.NumNodes())
	onZone := make([]int32, c.NumZones())
	for _, ord := range d.Holders() {
		if info, ok := c.Pod(ord); ok {
			if info.NodeIndex >= 0 {
				onNode[info.NodeIndex] += d.OnPod(ord)
			}
			if info.ZoneIndex >= 0 {
				onZone[info.ZoneIndex] += d.OnPod(ord)
			}
		}
	}
	for _, n := range c.SchedulableNodes() {
		nodes = append(nodes, onNode[n])
	}
	for _, z := range c.SchedulableZones() {
		zones = append(zones, onZone[z])
	}
	return nonHolder, pods, nodes, zones
}

// checkIncremental compares the Decision's incremental counts with a
// recount, and its skew predictions with the skew after actually moving.
func checkIncremental(t *testing.T, what string, d *framework.Decision) {
	t.Helper()
	nonHolder, pods, nodes, zones := recount(d)
	if got := d.NonHolderFreeCandidates(); got != nonHolder {
		t.Fatalf("%s: NonHolderFreeCandidates = %d, recount %d", what, got, nonHolder)
	}
	for _, dom := range []struct {
		name   string
		got    framework.DomainStats
		values []int32
	}{{"pod", d.PodStats(), pods}, {"node", d.NodeStats(), nodes}, {"zone", d.ZoneStats(), zones}} {
		if diff := cmp.Diff(ft.StatsOf(dom.values), dom.got); diff != "" {
			t.Fatalf("%s: %s stats of %v (-recount +decision):\n%s", what, dom.name, dom.values, diff)
		}
		for i, v := range dom.values {
			if got, want := dom.got.SkewAfterAdd(v), skewWith(dom.values, i, 1); got != want {
				t.Fatalf("%s: %s %v: SkewAfterAdd(%d) = %d, want %d", what, dom.name, dom.values, v, got, want)
			}
			if v == 0 {
				continue
			}
			if got, want := dom.got.SkewAfterRemove(v), skewWith(dom.values, i, -1); got != want {
				t.Fatalf("%s: %s %v: SkewAfterRemove(%d) = %d, want %d", what, dom.name, dom.values, v, got, want)
			}
		}
	}
	onZone := make([]int32, d.Cluster().NumZones())
	for z := range onZone {
		onZone[z] = d.OnZone(int32(z))
	}
	if diff := cmp.Diff(d.ZoneSpreadStats(), framework.CountedZoneStats(d.Cluster(), onZone)); diff != "" {
		t.Fatalf("%s: CountedZoneStats of %v (-ZoneSpreadStats +CountedZoneStats):\n%s", what, onZone, diff)
	}
	checkHolderIndexes(t, what, d)
	var total int32
	for _, ord := range d.Holders() {
		total += d.OnPod(ord)
	}
	if total != d.Total() || len(d.Holders()) != d.PodsHeld() {
		t.Fatalf("%s: Total %d PodsHeld %d, holders sum to %d over %d", what, d.Total(), d.PodsHeld(), total, len(d.Holders()))
	}
}

// checkHolderIndexes compares the holder indexes the Decision keeps change
// by change (Holders, RoomHolders, HolderPodStats) with a scan of every
// ordinal the scenarios use.
func checkHolderIndexes(t *testing.T, what string, d *framework.Decision) {
	t.Helper()
	c := d.Cluster()
	var holders, room, counts []int32
	for ord := int32(0); ord < c.Replicas()+16; ord++ {
		if d.OnPod(ord) <= 0 {
			continue
		}
		holders = append(holders, ord)
		if c.IsCandidate(ord) {
			counts = append(counts, d.OnPod(ord))
			if d.Free(ord) > 0 {
				room = append(room, ord)
			}
		}
	}
	if diff := cmp.Diff(holders, slices.Clone(d.Holders()), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s: Holders (-scan +decision):\n%s", what, diff)
	}
	if diff := cmp.Diff(room, slices.Clone(d.RoomHolders()), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s: RoomHolders (-scan +decision):\n%s", what, diff)
	}
	if diff := cmp.Diff(ft.StatsOf(counts), d.HolderPodStats()); diff != "" {
		t.Fatalf("%s: HolderPodStats of %v (-scan +decision):\n%s", what, counts, diff)
	}
}

// TestDecisionIncremental places and removes vreplicas one at a time, on
// pods a scripted scorer picks at random, checking after each change that
// every incremental count matches a recount.
func TestDecisionIncremental(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		sc := ft.RandomScenario(rng)
		for _, mode := range []framework.Mode{framework.Place, framework.Remove} {
			d, err := framework.NewDecision(mode, sc.Cluster, nil, sc.Base)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("seed %d, %s", seed, mode)
			checkIncremental(t, what+", start", d)
			randomSteps(t, rng, sc, d, 30, func() int32 { return 1 }, func(step int) {
				checkIncremental(t, fmt.Sprintf("%s, step %d", what, step), d)
			})
			// A reused decision starts its indexes afresh.
			if err := d.Reset(mode, sc.Cluster, nil, sc.Base); err != nil {
				t.Fatal(err)
			}
			checkIncremental(t, what+", reset", d)
		}
	}
}

// randomSteps runs on d, up to steps times or until nothing changes, a
// profile (capacity only, when placing) whose scorer ranks the pods at
// random, for n() vreplicas each time, calling check after each run.
func randomSteps(t *testing.T, rng *rand.Rand, sc ft.Scenario, d *framework.Decision, steps int, n func() int32, check func(step int)) {
	t.Helper()
	var filters []framework.FilterPlugin
	if d.Mode() == framework.Place {
		filters = append(filters, ft.CapacityFilter{})
	}
	for step := range steps {
		scores := map[int32]int64{}
		for ord := range sc.Cluster.Replicas() + 3 {
			scores[ord] = rng.Int63n(101)
		}
		p, err := framework.NewProfile(d.Mode(), filters, []framework.WeightedScore{{Plugin: &ft.ScriptedScorer{Scores: scores}, Weight: 1}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), d, n(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Changed == 0 {
			return
		}
		check(step)
	}
}

// plainRebalancer is a Rebalancer that says nothing of zones.
type plainRebalancer struct{ ft.CapacityFilter }

func (plainRebalancer) Misplaced(context.Context, *framework.Decision) (int32, bool) {
	return -1, false
}

// zoneRebalancer is a ZoneRebalancer with a fixed answer.
type zoneRebalancer struct {
	plainRebalancer
	balanced bool
}

func (z zoneRebalancer) ZoneBalanced(framework.Cluster, []int32) bool { return z.balanced }

// Profile.ZoneBalanced answers for the whole profile only when every
// Rebalancer can answer from the zones' counts.
func TestProfileZoneBalanced(t *testing.T) {
	c := ft.NewCluster(4).Node("a", "zone-a").Pods("a")
	for _, tc := range []struct {
		name   string
		filter framework.FilterPlugin
		want   bool
	}{
		{"no rebalancer", ft.CapacityFilter{}, true},
		{"a rebalancer that cannot tell from zones", plainRebalancer{}, false},
		{"a zone rebalancer finding the counts balanced", zoneRebalancer{balanced: true}, true},
		{"a zone rebalancer finding them uneven", zoneRebalancer{}, false},
	} {
		p, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{tc.filter}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.ZoneBalanced(c, []int32{3}); got != tc.want {
			t.Errorf("%s: ZoneBalanced = %v, want %v", tc.name, got, tc.want)
		}
	}
}
