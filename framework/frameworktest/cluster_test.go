package frameworktest_test

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

func TestCluster(t *testing.T) {
	c := ft.NewCluster(3).
		Node("n0", "a").Node("n1", "").Node("n2", "b").Node("n3", "a").
		Pods("n0", "n1", "", "n2", "n3", "n0").
		Use(0, 3).Use(1, 1).Use(4, 5).
		Cordon("n2").Drain(5)
	c.UsePlacements([]vsched.Placement{ft.P(1, 1), ft.P(9, 1)}) // 9 is beyond the pods: ignored

	type podView struct {
		Info framework.PodInfo
		OK   bool
		Free int32
	}
	got := map[int32]podView{}
	for ord := int32(-1); ord <= 6; ord++ {
		info, ok := c.Pod(ord)
		got[ord] = podView{info, ok, c.Free(ord)}
		if c.IsCandidate(ord) != info.Candidate {
			t.Errorf("IsCandidate(%d) = %v, Pod says %v", ord, c.IsCandidate(ord), info.Candidate)
		}
	}
	want := map[int32]podView{
		-1: {},
		0:  {framework.PodInfo{Ordinal: 0, Name: "adapter-0", Node: "n0", NodeIndex: 0, Zone: "a", ZoneIndex: 0, Candidate: true}, true, 0},
		1:  {framework.PodInfo{Ordinal: 1, Name: "adapter-1", Node: "n1", NodeIndex: 1, ZoneIndex: -1, Candidate: true}, true, 1},
		2:  {framework.PodInfo{Ordinal: 2, Name: "adapter-2", NodeIndex: -1, ZoneIndex: -1, Reason: "pod is not bound to a node"}, true, 3},
		3:  {framework.PodInfo{Ordinal: 3, Name: "adapter-3", Node: "n2", NodeIndex: 2, Zone: "b", ZoneIndex: 1, Reason: "node n2 is unschedulable"}, true, 3},
		4:  {framework.PodInfo{Ordinal: 4, Name: "adapter-4", Node: "n3", NodeIndex: 3, Zone: "a", ZoneIndex: 0, Candidate: true}, true, -2},
		5:  {framework.PodInfo{Ordinal: 5, Name: "adapter-5", Node: "n0", NodeIndex: 0, Zone: "a", ZoneIndex: 0, Reason: "pod is draining"}, true, 3},
		6:  {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if c.Capacity() != 3 || c.Replicas() != 6 || c.NumNodes() != 4 || c.NumZones() != 2 {
		t.Errorf("sizes: capacity %d replicas %d nodes %d zones %d", c.Capacity(), c.Replicas(), c.NumNodes(), c.NumZones())
	}
	if diff := cmp.Diff([]int32{0, 1, 4}, c.Candidates()); diff != "" {
		t.Errorf("Candidates (-want +got):\n%s", diff)
	}
	if c.FreeCandidates() != 1 {
		t.Errorf("FreeCandidates = %d, want 1 (pod 1)", c.FreeCandidates())
	}
	if diff := cmp.Diff([]int32{0, 1, 3}, c.SchedulableNodes()); diff != "" {
		t.Errorf("SchedulableNodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int32{0}, c.SchedulableZones()); diff != "" {
		t.Errorf("SchedulableZones (-want +got):\n%s", diff)
	}
	names := []string{c.NodeName(0), c.NodeName(3), c.NodeName(4), c.NodeName(-1), c.ZoneName(1), c.ZoneName(2)}
	if diff := cmp.Diff([]string{"n0", "n3", "", "", "b", ""}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	// A removed pod keeps its ordinal below Replicas but is not known.
	c.Remove(1)
	if _, ok := c.Pod(1); ok || c.Free(1) != 0 || c.Replicas() != 6 {
		t.Errorf("removed pod still known")
	}
	if diff := cmp.Diff([]int32{0, 4}, c.Candidates()); diff != "" {
		t.Errorf("Candidates after Remove (-want +got):\n%s", diff)
	}
}

func TestClusterPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"node twice":     func() { ft.NewCluster(1).Node("n", "").Node("n", "") },
		"unknown node":   func() { ft.NewCluster(1).Pods("n") },
		"cordon unknown": func() { ft.NewCluster(1).Node("n", "").Cordon("m") },
		"bad placement":  func() { ft.NewCluster(1).UsePlacements([]vsched.Placement{{PodName: "x"}}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		})
	}
}

func TestIndexed(t *testing.T) {
	c := ft.NewCluster(2).Node("n0", "a").Node("n1", "a").
		Pods("n0", "n1", "n0", "n0", "n0").Use(0, 2).Drain(3)
	x := c.Indexed()
	var got [][]int32
	for node := int32(-1); node <= 2; node++ {
		var ords []int32
		x.EachFreeCandidate(node, func(ord int32) bool {
			ords = append(ords, ord)
			return true
		})
		got = append(got, ords)
	}
	// Pod 0 is full and pod 3 draining.
	if diff := cmp.Diff([][]int32{nil, {2, 4}, {1}, nil}, got); diff != "" {
		t.Errorf("EachFreeCandidate (-want +got):\n%s", diff)
	}
	var first []int32
	x.EachFreeCandidate(0, func(ord int32) bool {
		first = append(first, ord)
		return false
	})
	if diff := cmp.Diff([]int32{2}, first); diff != "" {
		t.Errorf("EachFreeCandidate did not stop (-want +got):\n%s", diff)
	}
}

func TestRandomScenario(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		a := ft.RandomScenario(rand.New(rand.NewSource(seed)))
		b := ft.RandomScenario(rand.New(rand.NewSource(seed)))
		if !cmp.Equal(a.Base, b.Base) || a.N != b.N || a.Cluster.Replicas() != b.Cluster.Replicas() {
			t.Fatalf("seed %d: two scenarios differ", seed)
		}
		if err := vsched.ValidatePlacements(a.Base); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		if a.N < 1 {
			t.Errorf("seed %d: N = %d", seed, a.N)
		}
		for _, p := range a.Base {
			ord, _ := vsched.OrdinalFromPodName(p.PodName)
			if ord < a.Cluster.Replicas() && p.VReplicas > a.Cluster.Capacity()-a.Cluster.Free(ord) {
				if _, known := a.Cluster.Pod(ord); known {
					t.Errorf("seed %d: base %v not counted in the pod's usage", seed, p)
				}
			}
		}
	}
}

func TestVPod(t *testing.T) {
	v := ft.NewVPod("ns", "src", 3, ft.P(1, 2))
	v.Resources = 4
	if v.GetKey().String() != "ns/src" || v.GetVReplicas() != 3 || v.GetResourceVersion() != "1" ||
		len(v.GetPlacements()) != 1 || vsched.ResourceCount(v) != 4 {
		t.Errorf("VPod accessors: %+v", v)
	}
	if got := ft.P(7, 2); got != (vsched.Placement{PodName: "adapter-7", VReplicas: 2}) {
		t.Errorf("P = %+v", got)
	}
}
