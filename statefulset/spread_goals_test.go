package statefulset

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// TestSpreadGoalsThroughSchedule checks issue 11's spread goals through the
// whole Schedule path, every result written back as a controller would, on
// random clusters whose zones differ in size and whose pods are small
// enough for zones to fill up, with a zone cordoned and uncordoned along the
// way. After every call: when the zones' room allowed the source to end
// within MaxSkew over the counted zones, it does; and the zones that still
// have room stay within MaxSkew of each other if they were before. Until a
// source first shrinks, every node has at most one partly filled pod, so the
// pods used are at most ceil(vreplicas / capacity) plus the nodes.
func TestSpreadGoalsThroughSchedule(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			c := newKubeCluster(t)
			var nodes []string
			for z := 0; z < qualityZones; z++ {
				for i := 0; i <= rng.Intn(3); i++ {
					nodes = append(nodes, fmt.Sprintf("node-%c%d", 'a'+z, i))
					c.addNode(nodes[len(nodes)-1], fmt.Sprintf("zone-%c", 'a'+z))
				}
			}
			pods := int32(len(nodes) * (2 + rng.Intn(3)))
			for ord := int32(0); ord < pods; ord++ {
				c.addPod(ord, nodes[int(ord)%len(nodes)])
			}
			c.scale(pods)
			capacity := int32(3 + rng.Intn(6))
			s := c.start(func(cfg *Config) { cfg.Capacity = capacity })
			shrunk := false // no vreplica removed yet
			for step := 0; step < 60; step++ {
				switch {
				case step == 30:
					// A node of zone-a, the whole zone when it has one.
					c.cordon(nodes[0], true)
				case step == 45:
					c.cordon(nodes[0], false)
				}
				name := fmt.Sprintf("src-%d", rng.Intn(20))
				size := int32(1 + rng.Intn(12))
				if src := c.store.get(name); src == nil {
					c.store.create(name, size)
				} else {
					shrunk = shrunk || size < src.GetVReplicas()
					c.store.scale(name, size)
				}
				where := fmt.Sprintf("step %d, capacity %d, %d nodes", step, capacity, len(nodes))
				checkSpreadCall(t, s, c, name, where)
				if !shrunk {
					checkPacked(t, c, nodes, capacity, where)
				}
			}
		})
	}
}

// checkSpreadCall schedules the source, writes the result and checks the
// goals against the zones before and after.
func checkSpreadCall(t *testing.T, s *Scheduler, c *kubeCluster, name, where string) {
	t.Helper()
	src := c.store.get(name)
	var before zoneView
	s.withState(func(st *state.State) { before = viewZones(st, src.GetPlacements()) })
	delta := src.GetVReplicas() - vsched.TotalVReplicas(src.GetPlacements())
	ps, err := s.Schedule(quietCtx(), src)
	if err != nil && vsched.PendingCount(err) == 0 {
		t.Fatalf("%s: Schedule(%s): %v", where, name, err)
	}
	c.store.writeStatus(name, ps)
	s.Observe(c.store.get(name))
	var after zoneView
	s.withState(func(st *state.State) { after = viewZones(st, ps) })
	const maxSkew = 1 // the default policy's
	if bestSkew(before, before.healthy, delta) <= maxSkew {
		if got := skewOver(after.on, after.healthy); got > maxSkew {
			t.Errorf("%s: %s %+v -> %+v (%+d): zone skew %d, which the room allowed within %d", where, name, before, after, delta, got, maxSkew)
		}
	}
	room := make([]bool, qualityZones)
	for z := range room {
		room[z] = after.healthy[z] && after.free[z] > 0
	}
	if skewOver(before.on, room) <= maxSkew {
		if got := skewOver(after.on, room); got > maxSkew {
			t.Errorf("%s: %s %+v -> %+v (%+d): zone skew %d over the zones with room, above %d", where, name, before, after, delta, got, maxSkew)
		}
	}
}

// checkPacked checks the default policy's packing from the sources' written
// statuses: no node has two partly filled pods, hence the pods used are
// within ceil(vreplicas / capacity) + nodes. Pod ordinal o is on
// nodes[o % len(nodes)].
func checkPacked(t *testing.T, c *kubeCluster, nodes []string, capacity int32, where string) {
	t.Helper()
	used := map[int32]int32{}
	var total int32
	for i := 0; i < 20; i++ {
		src := c.store.get(fmt.Sprintf("src-%d", i))
		if src == nil {
			continue
		}
		for _, p := range src.GetPlacements() {
			ord, err := vsched.OrdinalFromPodName(p.PodName)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			used[ord] += p.VReplicas
			total += p.VReplicas
		}
	}
	partial := map[string][]int32{}
	for _, ord := range slices.Sorted(maps.Keys(used)) {
		if u := used[ord]; u < capacity {
			node := nodes[int(ord)%len(nodes)]
			partial[node] = append(partial[node], ord)
		}
	}
	for _, node := range nodes {
		if len(partial[node]) > 1 {
			t.Errorf("%s: node %s has partly filled pods %v (used %v)", where, node, partial[node], used)
		}
	}
	if bound := (total+capacity-1)/capacity + int32(len(nodes)); int32(len(used)) > bound {
		t.Errorf("%s: %d pods used for %d vreplicas, above ceil(vreplicas / %d) + %d nodes = %d", where, len(used), total, capacity, len(nodes), bound)
	}
}
