package statefulset

import (
	"testing"

	"github.com/vsched/vsched"
)

func TestLimitDrainMoves(t *testing.T) {
	pl := func(ord, n int32) vsched.Placement {
		return vsched.Placement{PodName: vsched.PodName("adapter", ord), VReplicas: n}
	}
	kept := []vsched.Placement{pl(0, 2)}
	draining := []vsched.Placement{pl(3, 4), pl(5, 6)}
	for _, c := range []struct {
		name             string
		need, limit      int32
		wantKept, wantMv string
	}{
		{"under the limit", 10, 20, "0:2", "3:4 5:6"},
		// 10 move, limit 3: 7 stay, from the lowest draining pods.
		{"keeps the lowest back", 10, 3, "0:2 3:4 5:3", "5:3"},
		// The source shrank: only 5 are wanted; the 5 surplus do not
		// count, 2 of the 5 stay.
		{"surplus is not a move", 5, 3, "0:2 3:2", "3:2 5:6"},
		{"growth on top", 14, 3, "0:2 3:4 5:3", "5:3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, mv := limitDrainMoves(kept, draining, c.need, c.limit)
			if short(k) != c.wantKept || short(mv) != c.wantMv {
				t.Fatalf("kept [%s] moving [%s], want [%s] [%s]", short(k), short(mv), c.wantKept, c.wantMv)
			}
		})
	}
	if short(kept) != "0:2" || short(draining) != "3:4 5:6" {
		t.Fatal("inputs modified")
	}
}

func TestScheduleBoundsMovesOffDrainingPods(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, profiles: packProfiles(t)})
	e.create("a", 20) // pods 0 and 1
	e.create("b", 1)  // pod 2
	if err := e.c.SetDraining(1, true); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.s.SetDrainMoveLimit(3)
	got := e.schedule(e.key("a"))
	// 3 of the 10 on pod 1 moved to pod 2; one entry per pod.
	wantPlacements(t, got, 0, 10, 1, 7, 2, 3)
	got = e.schedule(e.key("a"))
	wantPlacements(t, got, 0, 10, 1, 4, 2, 6)
	// Growing by 2 at the same time: 3 move and 2 are new, on pod 2
	// while it has room (3); the 2 it has no room for stay on pod 1,
	// listed once.
	e.update("a", 22)
	wantPlacements(t, e.placementsOf("a"), 0, 10, 1, 3, 2, 9)
	if err := vsched.ValidatePlacements(e.placementsOf("a")); err != nil {
		t.Fatal(err)
	}
	e.s.SetDrainMoveLimit(0)
}
