package statefulset

import (
	"errors"
	"testing"

	"github.com/vsched/vsched"
)

// How the scheduler reacts to the cluster changing under placed sources.
// All cases use the default policy unless they say otherwise.

func TestUnavailableNode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		disable func(c *kubeCluster)
		enable  func(c *kubeCluster)
	}{
		{
			name:    "cordoned",
			disable: func(c *kubeCluster) { c.cordon("node-b", true) },
			enable:  func(c *kubeCluster) { c.cordon("node-b", false) },
		},
		{
			// NotReady with the node lifecycle controller's unreachable
			// taints.
			name:    "NotReady",
			disable: func(c *kubeCluster) { c.setReady("node-b", false) },
			enable:  func(c *kubeCluster) { c.setReady("node-b", true) },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := zones3(t, 6)
			s := c.start()
			c.store.create("a", 3)
			// One per zone: adapter-0, 1, 2.
			wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 1, 1, 1, 2, 1)

			tc.disable(c) // node-b holds adapter-1 and adapter-4
			c.store.scale("a", 6)
			// adapter-1 keeps its vreplica: running work is not moved off
			// an unavailable node. The three new ones avoid node-b; zone-b
			// has no candidate left, so the spread is over zones a and c,
			// and a pod in use comes before an empty one: adapter-0, then
			// zone-c's adapter-2, then zones tie and the ordinal picks
			// adapter-0.
			got := scheduleOK(t, s, c, "a")
			wantPlacements(t, got, 0, 3, 1, 1, 2, 2)

			// A second source gets nothing on node-b either.
			c.store.create("b", 4)
			for ord := range counts(t, scheduleOK(t, s, c, "b")) {
				if ord == 1 || ord == 4 {
					t.Fatalf("source b placed on adapter-%d, whose node is unavailable", ord)
				}
			}

			// Back in service, node-b's pods take new vreplicas again:
			// zone-b is the emptiest zone for a.
			tc.enable(c)
			c.store.scale("a", 7)
			if got := counts(t, scheduleOK(t, s, c, "a")); got[1]+got[4] != 2 {
				t.Fatalf("after node-b recovered, zone-b holds %d of a, want 2: %v", got[1]+got[4], got)
			}
		})
	}
}

func TestDrainingPodMovesInOneResult(t *testing.T) {
	c := zones3(t, 6)
	s := c.start()
	c.store.create("a", 3)
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 1, 1, 1, 2, 1)

	c.drain(0, true)
	// Same vreplicas, but adapter-0 is draining: the one result both drops
	// it and places its vreplica elsewhere, so the status never lacks
	// it. Zone-a is now the emptiest zone and adapter-3 its only other pod.
	wantPlacements(t, scheduleOK(t, s, c, "a"), 1, 1, 2, 1, 3, 1)
	// Until the scheduler sees the move in a's status, a's adapter still
	// runs the vreplica on adapter-0, and it still counts there.
	if u := used(s); u[0] != 1 || u[3] != 1 {
		t.Fatalf("before the status shows the move: used = %v, want 1 on both adapter-0 and adapter-3", u)
	}
	s.Observe(c.store.get("a"))
	if _, ok := reservation(s, "a"); ok {
		t.Fatal("the written move is still a reservation")
	}
	if u := used(s); u[0] != 0 || u[3] != 1 {
		t.Fatalf("after the status shows the move: used = %v, want 0 on adapter-0 and 1 on adapter-3", u)
	}

	// A draining pod receives nothing new.
	c.store.create("b", 6)
	if got := counts(t, scheduleOK(t, s, c, "b")); got[0] != 0 {
		t.Fatalf("source b placed %d on draining adapter-0", got[0])
	}
}

func TestDrainingPodWithoutRoomElsewhereKeepsVReplicas(t *testing.T) {
	c := zones3(t, 3)
	s := c.start(func(cfg *Config) { cfg.Capacity = 1 })
	c.store.create("a", 1)
	c.store.create("b", 2)
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 1)
	wantPlacements(t, scheduleOK(t, s, c, "b"), 1, 1, 2, 1)

	c.drain(0, true)
	// Every other pod is full: a's vreplica keeps running where it is,
	// and a is not pending (its vreplica is placed, just not yet moved).
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 1)

	// Room appears: the next call moves it.
	c.addPod(3, "node-a").scale(4)
	wantPlacements(t, scheduleOK(t, s, c, "a"), 3, 1)
}

func TestZoneWithoutPodsDoesNotSkewSpread(t *testing.T) {
	// Zone spread and ordinal only, MaxSkew 1. If a zone without pods
	// counted as a zone holding 0, every pod would break MaxSkew from the
	// first round on, the zone score would be 0 everywhere, and the
	// ordinal alone would pile the source onto adapter-0 ([0:4 1:1 2:1]).
	profiles := profilesFromData(t, map[string]string{
		"priorities": `[{"Name": "AvailabilityZonePriority", "Weight": 10, "Args": {"MaxSkew": 1}},
			{"Name": "LowestOrdinalPriority", "Weight": 2}]`,
	}, nil)
	place := func(withEmptyZone bool) []vsched.Placement {
		c := zones3(t, 6)
		if withEmptyZone {
			c.addNode("node-d", "zone-d") // no pod of the StatefulSet
		}
		s := c.start(func(cfg *Config) { cfg.Profiles = profiles })
		c.store.create("a", 6)
		return scheduleOK(t, s, c, "a")
	}
	without, with := place(false), place(true)
	// Round robin over the three zones, lowest pod of each zone first.
	wantPlacements(t, without, 0, 2, 1, 2, 2, 2)
	wantPlacements(t, with, 0, 2, 1, 2, 2, 2)
}

func TestUnboundPod(t *testing.T) {
	c := zones3(t, 6)
	s := c.start()
	c.store.create("a", 3)
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 1, 1, 1, 2, 1)

	// adapter-6 is created but not yet bound, and adapter-1 is recreated
	// and waits for a node.
	c.addPod(6, "").scale(7)
	c.deletePod(1)
	c.addPod(1, "")

	// a keeps its vreplica on adapter-1 (the pod comes back under the
	// same name) and grows elsewhere.
	c.store.scale("a", 6)
	got := counts(t, scheduleOK(t, s, c, "a"))
	if got[1] != 1 || got[6] != 0 {
		t.Fatalf("a = %v: want 1 kept on adapter-1 and none on unbound adapter-6", got)
	}
	// Other sources are unaffected: placed in full, never on unbound pods.
	for _, name := range []string{"b", "c", "d"} {
		c.store.create(name, 4)
		got := counts(t, scheduleOK(t, s, c, name))
		if got[1] != 0 || got[6] != 0 {
			t.Fatalf("%s = %v: placed on an unbound pod", name, got)
		}
	}

	// Once bound, the pod is a candidate like any other: e needs more
	// than the other candidates' free room (50 slots, 17 used), and
	// adapter-6, on node-a, takes the rest.
	c.bind(6, "node-a")
	c.store.create("e", 40)
	if got := counts(t, scheduleOK(t, s, c, "e")); got[6] == 0 {
		t.Fatalf("e = %v: nothing on adapter-6 after it was bound", got)
	}
}

func TestPlacementsBeyondReplicasAreMoved(t *testing.T) {
	c := zones3(t, 6)
	s := c.start()
	// Placed while the StatefulSet had 6 replicas. b comes first: placed
	// after a, it would go to a's fuller pods (best fit).
	c.store.create("b", 2)
	wantPlacements(t, scheduleOK(t, s, c, "b"), 0, 1, 1, 1)
	c.store.put(&vsched.PlainVPod{Key: srcKey("a"), VReplicas: 6, Placements: placements(0, 1, 4, 2, 5, 3)})

	// Scale down to 4: adapter-4 and adapter-5 go away.
	c.scale(4)
	c.deletePod(4)
	c.deletePod(5)

	// a's 5 vreplicas on 4 and 5 move in this one call. adapter-0 is kept;
	// zone-a holds it, so zones b and c come first (adapter-1, in use by
	// b, then adapter-2), then a pod in use before the empty adapter-3:
	// adapter-0, then zones b and c again.
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 2, 1, 2, 2, 2)
	// b was not touched by a's call and still counts where it was. a's
	// old placements on adapter-4 and adapter-5 count until its status
	// shows the move.
	if u := used(s); !sameCounts(u, map[int32]int32{0: 3, 1: 3, 2: 2, 4: 2, 5: 3}) {
		t.Fatalf("before the status shows the move: used = %v", u)
	}
	s.Observe(c.store.get("a"))
	if u := used(s); !sameCounts(u, map[int32]int32{0: 3, 1: 3, 2: 2}) {
		t.Fatalf("after the status shows the move: used = %v", u)
	}
}

func TestScaleDownThroughDescheduler(t *testing.T) {
	t.Run("design descheduler", func(t *testing.T) {
		c := zones3(t, 6)
		s := c.start(func(cfg *Config) { cfg.Profiles = profilesFromData(t, kafkaHAScheduler, designDescheduler) })
		c.store.create("a", 6)
		wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 2, 1, 2, 2, 2) // see TestExactPlacementsKafkaHA
		c.store.scale("a", 3)
		// Pod spread x10 and zone x10 tie at 2/2/2, so the ordinal (x2)
		// removes from adapter-2 first; then adapter-2 and zone-c hold
		// the least and score half, and adapter-1 goes; then adapter-0.
		wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 1, 1, 1, 2, 1)
	})
	t.Run("default descheduler", func(t *testing.T) {
		c := zones3(t, 6)
		s := c.start()
		c.store.create("a", 7)
		// One node per zone: each zone's share packs into its pod in use.
		wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 3, 1, 2, 2, 2)
		c.store.scale("a", 5)
		// Zone-a holds 3, the others 2: the first removal is from
		// zone-a, adapter-0. Then every zone, node and pod is even and
		// the highest ordinal goes.
		wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 2, 1, 2, 2, 1)
		c.store.scale("a", 1)
		wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 1)
	})
}

func TestZeroAndNegativeVReplicas(t *testing.T) {
	c := zones3(t, 3)
	s := c.start()

	c.store.create("zero", 0)
	if got := scheduleOK(t, s, c, "zero"); len(got) != 0 {
		t.Fatalf("a source with 0 vreplicas got placements %v", got)
	}

	c.store.create("a", 3)
	scheduleOK(t, s, c, "a")
	c.store.scale("a", 0)
	if got := scheduleOK(t, s, c, "a"); len(got) != 0 {
		t.Fatalf("a source scaled to 0 kept placements %v", got)
	}

	before := used(s)
	neg := c.store.put(&vsched.PlainVPod{Key: srcKey("neg"), VReplicas: -1, Placements: placements(0, 1)})
	ps, err := s.Schedule(quietCtx(), neg)
	if err == nil || errors.Is(err, vsched.ErrNotEnoughReplicas) || ps != nil {
		t.Fatalf("Schedule(-1 vreplicas) = %v, %v; want an error that is not pending", ps, err)
	}
	if after := used(s); !sameCounts(after, before) {
		t.Fatalf("a rejected call changed the state: %v -> %v", before, after)
	}
}
