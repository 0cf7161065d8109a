package autoscaler

import (
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

func TestScheduleBoundsMovesOffDrainingPods(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, profiles: packProfiles(t), config: func(c *config.AutoscalerConfig) { c.MaxMovesPerSource = 3 }})
	e.create("a", 20) // pods 0 and 1
	e.create("b", 1)  // pod 2
	if err := e.c.SetDraining(1, true); err != nil {
		t.Fatal(err)
	}
	e.sync()
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
}
