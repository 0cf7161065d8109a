package statefulset

import (
	"errors"
	"strings"
	"testing"

	"github.com/vsched/vsched"
)

// A hard zone spread that leaves vreplicas pending while pods have room
// says so, naming the rule and the zone that bounds the source (issue 11
// item 4): the PendingError's Reason, which the sample controller copies
// into its Scheduled condition.
func TestPendingReasonNamesTheBindingZone(t *testing.T) {
	c := zones3(t, 6)
	s := c.start(func(cfg *Config) {
		cfg.Capacity = 2
		cfg.Profiles = profilesFromData(t, zoneHardScheduler, nil)
	})
	// zone-c's pods (adapter-2 and adapter-5) are full of another source.
	c.store.put(&vsched.PlainVPod{Key: srcKey("filler"), VReplicas: 4, Placements: placements(2, 2, 5, 2)})
	c.store.create("a", 4)
	ps, err := s.Schedule(quietCtx(), c.store.get("a"))
	var pe *vsched.PendingError
	if !errors.As(err, &pe) || pe.Pending != 2 {
		t.Fatalf("err = %v, want 2 pending", err)
	}
	// One per zone with room; a second in zone-a or zone-b would make the
	// skew 2 against zone-c's 0.
	wantPlacements(t, ps, 0, 1, 1, 1)
	for _, want := range []string{
		"bound by EvenZoneSpread, which rejected 4 pod(s) that have room",
		"fewest: 0, in zone-c (full: it bounds the source)",
	} {
		if !strings.Contains(pe.Reason, want) {
			t.Errorf("Reason %q lacks %q", pe.Reason, want)
		}
	}
}
