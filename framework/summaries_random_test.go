package framework_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// summaries is every spread summary a Decision offers, as of one moment.
type summaries struct {
	Pod, HolderPod, Node, Zone, ZoneSpread, NodeRoom, ZoneRoom, Feasible framework.DomainStats
	InZone, PodRoomOnNode                                                []framework.DomainStats
	ZoneRoomy, NodeRoomy                                                 []bool
}

// keptSummaries reads the summaries the Decision keeps. Indexes one past
// either end are asked too: they must answer as nothing.
func keptSummaries(d *framework.Decision) summaries {
	c := d.Cluster()
	s := summaries{
		Pod: d.PodStats(), HolderPod: d.HolderPodStats(), Node: d.NodeStats(), Zone: d.ZoneStats(),
		ZoneSpread: d.ZoneSpreadStats(), NodeRoom: d.NodeRoomStats(), ZoneRoom: d.ZoneRoomStats(),
		Feasible: d.FeasibleZoneStats(),
	}
	for z := int32(-1); z <= int32(c.NumZones()); z++ {
		s.InZone = append(s.InZone, d.NodeRoomStatsInZone(z))
		s.ZoneRoomy = append(s.ZoneRoomy, d.ZoneHasRoom(z))
	}
	for n := int32(-1); n <= int32(c.NumNodes()); n++ {
		s.NodeRoomy = append(s.NodeRoomy, d.NodeHasRoom(n))
		s.PodRoomOnNode = append(s.PodRoomOnNode, d.PodRoomStatsOnNode(n))
	}
	return s
}

// scratchSummaries recomputes the summaries from their definitions,
// through the Cluster, OnPod and Free only.
func scratchSummaries(d *framework.Decision) summaries {
	c := d.Cluster()
	onNode := make([]int32, c.NumNodes())
	onZone := make([]int32, c.NumZones())
	roomZone := make([]int32, c.NumNodes()) // the zone of a node with room, -2 for none
	for i := range roomZone {
		roomZone[i] = -2
	}
	var pods, holders []int32
	onNodeRoom := make([][]int32, c.NumNodes()+2)
	for ord := int32(0); ord < c.Replicas()+16; ord++ {
		info, ok := c.Pod(ord)
		if !ok {
			continue
		}
		v := d.OnPod(ord)
		if info.NodeIndex >= 0 {
			onNode[info.NodeIndex] += v
		}
		if info.ZoneIndex >= 0 {
			onZone[info.ZoneIndex] += v
		}
		if !info.Candidate {
			continue
		}
		if v > 0 {
			holders = append(holders, v)
		}
		if v > 0 || d.Free(ord) > 0 {
			pods = append(pods, v)
		}
		if d.Free(ord) > 0 && info.NodeIndex >= 0 {
			roomZone[info.NodeIndex] = info.ZoneIndex
			// The pods with room holding none count as one 0.
			if v > 0 || !slices.Contains(onNodeRoom[info.NodeIndex+1], 0) {
				onNodeRoom[info.NodeIndex+1] = append(onNodeRoom[info.NodeIndex+1], v)
			}
		}
	}
	s := summaries{Pod: ft.StatsOf(pods), HolderPod: ft.StatsOf(holders)}
	var nodes, nodeRoom, zones, zoneSpread, zoneRoom []int32
	inZone := make([][]int32, c.NumZones()+2)
	for _, n := range c.SchedulableNodes() {
		nodes = append(nodes, onNode[n])
		if z := roomZone[n]; z != -2 {
			nodeRoom = append(nodeRoom, onNode[n])
			inZone[z+1] = append(inZone[z+1], onNode[n])
		}
	}
	for _, z := range c.SchedulableZones() {
		zones = append(zones, onZone[z])
		if len(inZone[z+1]) > 0 {
			zoneRoom = append(zoneRoom, onZone[z])
		}
	}
	zoneSpread = append(zoneSpread, zones...)
	for _, z := range c.GrowthZones() {
		zoneSpread = append(zoneSpread, onZone[z])
	}
	s.Node, s.NodeRoom, s.Zone = ft.StatsOf(nodes), ft.StatsOf(nodeRoom), ft.StatsOf(zones)
	s.ZoneSpread, s.ZoneRoom = ft.StatsOf(zoneSpread), ft.StatsOf(zoneRoom)
	s.Feasible = s.ZoneRoom // outside a step
	for z := -1; z <= c.NumZones(); z++ {
		var st framework.DomainStats
		if z >= 0 && z < c.NumZones() {
			st = ft.StatsOf(inZone[z+1])
		}
		s.InZone = append(s.InZone, st)
		s.ZoneRoomy = append(s.ZoneRoomy, st.Domains > 0)
	}
	for n := -1; n <= c.NumNodes(); n++ {
		s.NodeRoomy = append(s.NodeRoomy, n >= 0 && n < c.NumNodes() && roomZone[n] != -2)
		s.PodRoomOnNode = append(s.PodRoomOnNode, ft.StatsOf(onNodeRoom[n+1]))
	}
	return s
}

// TestKeptSummariesMatchScratch places and removes vreplicas on pods a
// scripted scorer picks at random, on random clusters (cordoned nodes,
// draining, missing and over-full pods, zones filling up), walking every
// node or reading the cluster's RoomIndex, and compares the summaries the
// Decision keeps change by change with a recomputation from scratch. The
// summaries are read at random steps only, so that a summary first asked
// late in a decision is checked too.
func TestKeptSummariesMatchScratch(t *testing.T) {
	for _, keepMin := range []int32{0, 5, 1 << 30} {
		// walked: a plain cluster; indexes: a FreeCandidateIndex walked;
		// roomIndex: the summaries read its RoomIndex.
		for _, cluster := range []string{"walked", "indexes", "roomIndex"} {
			t.Run(fmt.Sprintf("keepMin %d, %s", keepMin, cluster), func(t *testing.T) {
				defer framework.SetKeepMin(keepMin)()
				if cluster == "roomIndex" {
					defer framework.SetRoomIndexMin(0)()
				}
				checkKeptSummaries(t, cluster != "walked")
			})
		}
	}
}

func checkKeptSummaries(t *testing.T, indexed bool) {
	for seed := int64(1); seed <= 400; seed++ {
		rng := rand.New(rand.NewSource(seed))
		sc := ft.RandomScenario(rng)
		var cl framework.Cluster = sc.Cluster
		if indexed {
			cl = sc.Cluster.Indexed()
		}
		for _, mode := range []framework.Mode{framework.Place, framework.Remove} {
			what := fmt.Sprintf("seed %d, %s", seed, mode)
			d, err := framework.NewDecision(mode, cl, nil, sc.Base)
			if err != nil {
				t.Fatal(err)
			}
			checkSummaries(t, what+", start", d, rng.Intn(3) == 0)
			randomSteps(t, rng, sc, d, 60, func() int32 { return 1 + rng.Int31n(2) }, func(step int) {
				checkSummaries(t, fmt.Sprintf("%s, step %d", what, step), d, rng.Intn(3) == 0)
			})
			if err := d.Reset(mode, cl, nil, sc.Base); err != nil {
				t.Fatal(err)
			}
			checkSummaries(t, what+", reset", d, true)
		}
	}
}

func checkSummaries(t *testing.T, what string, d *framework.Decision, read bool) {
	t.Helper()
	if !read {
		return
	}
	if diff := cmp.Diff(scratchSummaries(d), keptSummaries(d)); diff != "" {
		t.Fatalf("%s: summaries (-scratch +kept):\n%s", what, diff)
	}
}
