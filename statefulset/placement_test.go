package statefulset

import (
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

// Exact placements for small cases, one per plugin combination. Every case
// runs on zones3(6): adapter-0..5 on node-a, node-b, node-c, node-a, node-b,
// node-c, one node per zone, so a pod's zone is zone-(ordinal mod 3).
//
// Scores below are weight x score. LowestOrdinalPriority scores
// 100*(5-ordinal)/5 with 6 replicas: 100, 80, 60, 40, 20, 0. A spread plugin
// scores a domain holding c of the source 100*(max+1-c)/(max+1), or 0 when
// one more there would exceed MaxSkew (unless c is the minimum).

type step struct {
	source    string
	vreplicas int32
	resources int32   // the source's own partition count, 0 for none
	want      []int32 // ordinal/count pairs
}

func runSteps(t *testing.T, capacity int32, profiles config.ProfilesSource, steps []step) {
	t.Helper()
	c := zones3(t, 6)
	s := c.start(func(cfg *Config) { cfg.Capacity = capacity; cfg.Profiles = profiles })
	for _, st := range steps {
		src := &vsched.PlainVPod{Key: srcKey(st.source), VReplicas: st.vreplicas, Resources: st.resources}
		c.store.put(src)
		got := scheduleOK(t, s, c, st.source)
		t.Logf("%s (%d vreplicas) -> [%s]", st.source, st.vreplicas, short(got))
		wantPlacements(t, got, st.want...)
	}
}

func TestExactPlacementsDefaultPolicy(t *testing.T) {
	// Zone x10 (MaxSkew 1), node x4 (MaxSkew 1), a pod in use x2, pod
	// spread x1 (MaxSkew 1); capacity 2 so the sources meet full pods.
	runSteps(t, 2, profilesFromData(t, nil, nil), []step{
		// a1: everything ties: the lowest ordinal, adapter-0.
		// a2: zone-a now holds 1; one more there makes the zone skew 2,
		//     so zone-b wins, lowest first: adapter-1.
		// a3: likewise zone-c: adapter-2.
		// a4: zones 1/1/1 and nodes 1/1/1 tie; pods 0-2 are in use with
		//     room and come before the empty 3-5, whatever the pod
		//     spread; they tie, and the ordinal picks adapter-0, now full.
		{source: "a", vreplicas: 4, want: []int32{0, 2, 1, 1, 2, 1}},
		// b1: b holds nothing; the pods in use with room, 1 and 2, tie:
		//     adapter-1, now full.
		// b2: zone-a or zone-c: zone-c's adapter-2 is in use, zone-a has
		//     only the empty adapter-3: adapter-2, now full.
		// b3: zone-a, whose only pod with room is adapter-3.
		// b4: zones and nodes tie (1/1/1); adapter-3 is the only pod in
		//     use with room: it fills.
		// b5: zone-a holds 2 of b, one more would skew the zones by 2:
		//     zone-b's empty adapter-4 beats zone-c's adapter-5 by
		//     ordinal.
		{source: "b", vreplicas: 5, want: []int32{1, 1, 2, 1, 3, 2, 4, 1}},
	})
}

func TestExactPlacementsKafkaHA(t *testing.T) {
	// PodFitsResources, NoMaxResourceCount(100) (never binding with 6
	// pods); zone x10 (MaxSkew 2), lowest ordinal x2, pod spread x2
	// (MaxSkew 2). The looser MaxSkew lets the ordinal pack a source onto
	// the lowest pod of each zone.
	runSteps(t, 10, profilesFromData(t, kafkaHAScheduler, designDescheduler), []step{
		// v1: all ties but the ordinal: adapter-0.
		// v2: zone-a holds 1: its pods score 500 for the zone, zones b
		//     and c 1000, so adapter-1 (1000 + 160 ordinal + 200 pod).
		// v3: adapter-2 the same way.
		// v4: zones 1/1/1 score 500 everywhere; adapter-0 gets 200
		//     (ordinal) + 100 (pod spread, holding 1 of max 1) = 800,
		//     adapter-3 80 + 200 = 780: back to adapter-0.
		// v5: zone-a (2) scores 330, zones b and c (1) 660; adapter-1:
		//     660 + 160 + 132 = 952 beats adapter-4: 660 + 40 + 200.
		// v6: zone-c is the only one at 1: adapter-2 (660 + 120 + 132)
		//     beats adapter-5 (660 + 0 + 200).
		{source: "ha", vreplicas: 6, want: []int32{0, 2, 1, 2, 2, 2}},
	})
}

func TestExactPlacementsLowestOrdinalOnly(t *testing.T) {
	// Only the ordinal scores; PodFitsResources is added by config. Each
	// source fills the lowest pods in turn, counting the previous one.
	profiles := profilesFromData(t, map[string]string{
		"priorities": `[{"Name": "LowestOrdinalPriority"}]`,
	}, nil)
	runSteps(t, 10, profiles, []step{
		// adapter-0 takes 10 (its capacity), the rest spills to adapter-1.
		{source: "a", vreplicas: 12, want: []int32{0, 10, 1, 2}},
		// adapter-0 is full; adapter-1 has 8 free.
		{source: "b", vreplicas: 3, want: []int32{1, 3}},
	})
}

func TestExactPlacementsEvenPodSpreadPredicate(t *testing.T) {
	// EvenPodSpread as a filter (MaxSkew 1) and the ordinal as the only
	// score: a pod may take one more only while it is not ahead of the
	// least loaded pod.
	profiles := profilesFromData(t, map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "EvenPodSpread", "Args": {"MaxSkew": 1}}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority"}]`,
	}, nil)
	runSteps(t, 10, profiles, []step{
		// v1-v6: one per pod in ordinal order, since a pod holding one is
		//     rejected while any pod holds none.
		// v7: all hold 1: adapter-0 by ordinal.
		// v8: adapter-0 (2) would make the skew 2: adapter-1.
		{source: "even", vreplicas: 8, want: []int32{0, 2, 1, 2, 2, 1, 3, 1, 4, 1, 5, 1}},
	})
}

func TestExactPlacementsNoMaxResourceCount(t *testing.T) {
	// NoMaxResourceCount (NumPartitions 100) with EvenPodSpread (MaxSkew
	// 1) as filters, the ordinal as score. A source reporting its own
	// partition count is held to that many pods; one that reports none
	// gets the configured 100, which never binds here.
	profiles := profilesFromData(t, map[string]string{
		"predicates": `[{"Name": "PodFitsResources"},
			{"Name": "NoMaxResourceCount", "Args": "{\"NumPartitions\": 100}"},
			{"Name": "EvenPodSpread", "Args": {"MaxSkew": 1}}]`,
		"priorities": `[{"Name": "LowestOrdinalPriority"}]`,
	}, nil)
	runSteps(t, 10, profiles, []step{
		// v1: adapter-0. v2: the pod spread rejects adapter-0: adapter-1.
		// From v3 on the source spans 2 pods, its partition count: other
		// pods are rejected and the spread is counted over the two
		// holders only, so they alternate: 0, 1, 0.
		{source: "two-partitions", vreplicas: 5, resources: 2, want: []int32{0, 3, 1, 2}},
		// No count of its own: one per pod, lowest first.
		{source: "unknown-partitions", vreplicas: 5, want: []int32{0, 1, 1, 1, 2, 1, 3, 1, 4, 1}},
	})
}
