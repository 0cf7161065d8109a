package descheduler

import (
	"fmt"
	"strings"
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
			k, mv := LimitDrainMoves(kept, draining, c.need, c.limit)
			if short(k) != c.wantKept || short(mv) != c.wantMv {
				t.Fatalf("kept [%s] moving [%s], want [%s] [%s]", short(k), short(mv), c.wantKept, c.wantMv)
			}
		})
	}
	if short(kept) != "0:2" || short(draining) != "3:4 5:6" {
		t.Fatal("inputs modified")
	}
}

// short renders placements as "0:2 1:1".
func short(ps []vsched.Placement) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		ord, _ := vsched.OrdinalFromPodName(p.PodName)
		parts[i] = fmt.Sprintf("%d:%d", ord, p.VReplicas)
	}
	return strings.Join(parts, " ")
}

// fakeView is a StatefulSet "adapter" of replicas pods, those in draining
// draining.
type fakeView struct {
	replicas int32
	draining map[int32]bool
}

func (v fakeView) OrdinalOf(name string) (int32, bool) { return vsched.OrdinalOf("adapter", name) }
func (v fakeView) Replicas() int32                     { return v.replicas }
func (v fakeView) Draining(ord int32) bool             { return v.draining[ord] }

func TestSplitPlacements(t *testing.T) {
	pl := func(name string, n int32) vsched.Placement { return vsched.Placement{PodName: name, VReplicas: n} }
	ps := []vsched.Placement{pl("adapter-0", 2), pl("adapter-1", 3), pl("other-2", 4), pl("adapter-2", 0), pl("adapter-3", 5), pl("adapter-4", 6)}
	v := fakeView{replicas: 4, draining: map[int32]bool{1: true}}
	buf := make([]vsched.Placement, 0, 8)
	got := SplitPlacements(v, ps, buf)
	if k, d := short(got.Kept), short(got.Draining); k != "0:2 3:5" || d != "1:3" || got.Lost != 6 {
		t.Fatalf("kept [%s] draining [%s] lost %d; want [0:2 3:5] [1:3] 6", k, d, got.Lost)
	}
	if &buf[:1][0] != &got.Kept[0] {
		t.Error("Kept does not reuse the buffer given")
	}
	if got := SplitPlacements(v, nil, nil); got.Kept != nil || got.Draining != nil || got.Lost != 0 {
		t.Errorf("split of no placements = %+v", got)
	}
}
