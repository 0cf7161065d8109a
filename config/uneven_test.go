package config_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// uneven is a cluster whose zones differ in size: zone-a has 3 nodes,
// zone-b 2 and zone-c 1, with two pods per node laid out round-robin as a
// topology spread lays them out: ordinals 0-5 on a1, b1, c1, a2, b2, a3,
// then 6-11 on the same nodes again.
func uneven(capacity int32) *frameworktest.Cluster {
	nodes := []string{"a1", "b1", "c1", "a2", "b2", "a3"}
	c := frameworktest.NewCluster(capacity).
		Node("a1", "zone-a").Node("b1", "zone-b").Node("c1", "zone-c").
		Node("a2", "zone-a").Node("b2", "zone-b").Node("a3", "zone-a")
	return c.Pods(nodes...).Pods(nodes...)
}

// spreadOf counts placements per zone and per node, by the cluster's
// names, so a test can say what a placement means.
func spreadOf(c *frameworktest.Cluster, ps map[int32]int32) (zones, nodes map[string]int32) {
	zones, nodes = map[string]int32{}, map[string]int32{}
	for ord, n := range ps {
		info, _ := c.Pod(ord)
		zones[info.Zone] += n
		nodes[info.Node] += n
	}
	return zones, nodes
}

// On an uneven cluster the default policy spreads zones first, then the
// nodes of each zone, then pods, then packs onto low ordinals, whatever the
// zone sizes; and once a zone is full, it keeps the others within MaxSkew.
func TestDefaultPolicyUnevenZones(t *testing.T) {
	tests := []struct {
		name      string
		cluster   *frameworktest.Cluster
		vreplicas int32
		want      map[int32]int32
		zones     map[string]int32
		nodes     map[string]int32
	}{{
		// 12 = 4 per zone; zone-a's 4 over its 3 nodes (2/1/1),
		// zone-b's over 2 (2/2), zone-c's on its only node. Node spread
		// (x4) over the 6 nodes would pull vreplicas into zone-a; zone
		// spread (x10) outweighs it. Each node's share goes to one pod:
		// a pod in use (here by the source itself) comes before an
		// empty one, so c1's 4 share pod 2 and pod 8 stays empty.
		name: "zones first, then the nodes of each zone", cluster: uneven(10), vreplicas: 12,
		want:  map[int32]int32{0: 2, 1: 2, 2: 4, 3: 1, 4: 2, 5: 1},
		zones: map[string]int32{"zone-a": 4, "zone-b": 4, "zone-c": 4},
		nodes: map[string]int32{"a1": 2, "a2": 1, "a3": 1, "b1": 2, "b2": 2, "c1": 4},
	}, {
		// zone-c's pods are full and hold none of the source: the zone
		// skew cannot stay within 1, yet zone-a and zone-b, which have
		// room, stay within 1 of each other: 5/5, where spreading
		// evenly over their 5 nodes would give 6/4.
		name: "a full zone: the zones with room stay even", cluster: uneven(10).Use(2, 10).Use(8, 10), vreplicas: 10,
		want:  map[int32]int32{0: 2, 1: 3, 3: 2, 4: 2, 5: 1},
		zones: map[string]int32{"zone-a": 5, "zone-b": 5},
		nodes: map[string]int32{"a1": 2, "a2": 2, "a3": 1, "b1": 3, "b2": 2},
	}, {
		// Best fit: pod 6 (a1) is partly used by other sources; spread
		// ranks it like the empty pod 0 on the same node, and the fuller
		// pod takes the vreplica rather than the lower ordinal.
		name: "best fit: the fuller pod of a node first", cluster: uneven(10).Use(6, 7), vreplicas: 1,
		want:  map[int32]int32{6: 1},
		zones: map[string]int32{"zone-a": 1},
		nodes: map[string]int32{"a1": 1},
	}, {
		// One per zone; in zone-a the nodes tie, and of the partly used
		// pods 3 (2 free) and 6 (5 free) the fuller wins; zones b and c
		// have no pod in use, so their lowest ordinals open.
		name: "best fit across a zone's nodes", cluster: uneven(10).Use(6, 5).Use(3, 8), vreplicas: 3,
		want:  map[int32]int32{1: 1, 2: 1, 3: 1},
		zones: map[string]int32{"zone-a": 1, "zone-b": 1, "zone-c": 1},
		nodes: map[string]int32{"a2": 1, "b1": 1, "c1": 1},
	}, {
		// zone-c's only node is cordoned (or failed): it is not counted,
		// and the others share the source evenly.
		name: "a failed zone: the others stay even", cluster: uneven(10).Cordon("c1"), vreplicas: 6,
		want:  map[int32]int32{0: 1, 1: 2, 3: 1, 4: 1, 5: 1},
		zones: map[string]int32{"zone-a": 3, "zone-b": 3},
		nodes: map[string]int32{"a1": 1, "a2": 1, "a3": 1, "b1": 2, "b2": 1},
	}, {
		// Pods of capacity 4: zone-c's 6 fill pod 2 before pod 8 opens,
		// and every other node's share fits its first pod, so each
		// node has at most one partly filled pod (pod spread, below
		// packing, would have split c1's 6 as 3/3 and b1's 3 as 2/1).
		name: "a node opens a pod only when its pods in use are full", cluster: uneven(4), vreplicas: 18,
		want:  map[int32]int32{0: 2, 1: 3, 2: 4, 3: 2, 4: 3, 5: 2, 8: 2},
		zones: map[string]int32{"zone-a": 6, "zone-b": 6, "zone-c": 6},
		nodes: map[string]int32{"a1": 2, "a2": 2, "a3": 2, "b1": 3, "b2": 3, "c1": 6},
	}, {
		// c1's pods are both in use by other sources (2 holds 4, 8
		// holds 6): both come before any empty pod, and among them pod
		// spread decides, so zone-c's 4 alternate 8, 2, 8, 2 (best fit
		// takes the fuller 8 when they tie) instead of filling pod 8.
		name: "pod spread among a node's pods in use", cluster: uneven(10).Use(2, 4).Use(8, 6), vreplicas: 12,
		want:  map[int32]int32{0: 2, 1: 2, 2: 2, 3: 1, 4: 2, 5: 1, 8: 2},
		zones: map[string]int32{"zone-a": 4, "zone-b": 4, "zone-c": 4},
		nodes: map[string]int32{"a1": 2, "a2": 1, "a3": 1, "b1": 2, "b2": 2, "c1": 4},
	}}
	ps := defaultProfiles(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := runAll(t, ps.Place, framework.Place, tc.cluster, frameworktest.NewVPod("ns", "src", tc.vreplicas), nil, tc.vreplicas)
			got := placed(d.Placements())
			zones, nodes := spreadOf(tc.cluster, got)
			if diff := cmp.Diff(tc.zones, zones); diff != "" {
				t.Errorf("per zone (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.nodes, nodes); diff != "" {
				t.Errorf("per node (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
			if err := openedOnlyWhenFull(tc.cluster, d); err != nil {
				t.Error(err)
			}
		})
	}
}

// openedOnlyWhenFull checks the default policy's packing rule on a decision
// that only placed: a node opened an empty pod only when its pods in use
// were full, so after the decision every node on which it opened a pod has
// its pods in use before full and at most one of the opened pods partly
// filled. From an empty cluster, every node then has at most one partly
// filled pod.
func openedOnlyWhenFull(c *frameworktest.Cluster, d *framework.Decision) error {
	capacity := c.Capacity()
	type node struct{ opened, partial, inUseWithRoom int }
	nodes := map[string]*node{}
	for _, ord := range c.Candidates() {
		info, _ := c.Pod(ord)
		n := nodes[info.Node]
		if n == nil {
			n = &node{}
			nodes[info.Node] = n
		}
		before, after := c.Free(ord), d.Free(ord)
		switch {
		case before == capacity && after < capacity:
			n.opened++
			if after > 0 {
				n.partial++
			}
		case before < capacity && after > 0:
			n.inUseWithRoom++
		}
	}
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		if n := nodes[name]; n.opened > 0 && (n.partial > 1 || n.inUseWithRoom > 0) {
			return fmt.Errorf("node %s: opened %d pod(s), %d left partly filled, while %d pod(s) in use before still have room", name, n.opened, n.partial, n.inUseWithRoom)
		}
	}
	return nil
}
