package statefulset

import (
	"strings"
	"testing"

	"github.com/vsched/vsched"
)

// onPod0 is what the placements hold on ordinal 0.
func onPod0(ps []vsched.Placement) int32 {
	for _, p := range ps {
		if strings.HasSuffix(p.PodName, "-0") {
			return p.VReplicas
		}
	}
	return 0
}

// A move quota bounds the next Schedule's moves off draining pods to
// exactly its number, is spent by that call, and once cleared the drain
// moves what it would have.
func TestMoveQuota(t *testing.T) {
	c := zones3(t, 3)
	s := c.start()
	c.store.create("a", 6)
	if got := onPod0(scheduleOK(t, s, c, "a")); got != 2 {
		t.Fatalf("a holds %d on pod 0, want 2 (one zone spread over three pods)", got)
	}
	s.MarkDraining(0)
	s.SetMoveQuota(c.store.get("a").GetKey(), 1)
	for i, want := range []int32{1, 1} { // the quota, then nothing: spent
		if got := onPod0(scheduleOK(t, s, c, "a")); got != want {
			t.Fatalf("call %d: a holds %d on the draining pod 0, want %d", i, got, want)
		}
	}
	s.ClearMoveQuota(c.store.get("a").GetKey())
	if got := onPod0(scheduleOK(t, s, c, "a")); got != 0 {
		t.Fatalf("after the quota is cleared, a holds %d on the draining pod 0, want 0", got)
	}
}
