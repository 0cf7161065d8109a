package statefulset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vsched/vsched"
)

func TestViewsAreCopiesOfWhatIsCounted(t *testing.T) {
	// a (6) decided, not written: reserved on adapter-0; b (6) decided
	// after it and written, but not yet observed.
	c, s := reservationCluster(t)
	c.store.create("c", 1)
	c.store.writeStatus("c", placements(2, 1))
	s.Observe(c.store.get("c"))
	c.drain(2, true)

	ignore := cmpopts.IgnoreFields(SourceView{}, "ReservedAt", "BasedOn")
	noZone := cmpopts.IgnoreFields(vsched.Placement{}, "NodeName", "ZoneName")
	want := []SourceView{
		{Key: srcKey("a"), VReplicas: 6, Committed: []vsched.Placement{}, Reserved: placements(0, 6)},
		{Key: srcKey("b"), VReplicas: 6, Committed: []vsched.Placement{}, Reserved: placements(0, 4, 1, 2)},
		{Key: srcKey("c"), VReplicas: 1, Committed: placements(2, 1)},
	}
	got := s.Sources()
	if diff := cmp.Diff(want, got, ignore, noZone, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Sources() (-want +got):\n%s", diff)
	}
	if v, ok := s.Source(srcKey("b")); !ok || v.BasedOn == "" || v.ReservedAt.IsZero() {
		t.Errorf("Source(b) = %+v, %v", v, ok)
	}
	// A copy: changing it changes nothing in the scheduler.
	got[0].Reserved[0].VReplicas = 99
	if v, _ := s.Source(srcKey("a")); v.Reserved[0].VReplicas != 6 {
		t.Errorf("the view shares its placements with the state")
	}

	pods := s.Pods()
	var used []int32
	var candidate []bool
	for _, p := range pods {
		used, candidate = append(used, p.Used), append(candidate, p.Candidate)
	}
	if diff := cmp.Diff([]int32{10, 2, 1}, used); diff != "" {
		t.Errorf("Pods() used (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, true, false}, candidate); diff != "" {
		t.Errorf("Pods() candidate (-want +got):\n%s", diff)
	}
	if p := pods[2]; !p.Draining || p.Reason != "pod is draining" || p.Name != "adapter-2" || p.Zone == "" || p.Node == "" {
		t.Errorf("Pods()[2] = %+v", p)
	}
}
