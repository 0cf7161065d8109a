package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// checkZoneIndex compares the zone index and the room counts with a recount
// over the candidates.
func checkZoneIndex(t *testing.T, s *State, what string) {
	t.Helper()
	wantKeys := map[int32][]int64{}
	wantFree := map[int32]int{}
	wantCap := map[int32]int64{}
	for _, ord := range s.Candidates() {
		info, _ := s.Pod(ord)
		if f := s.Free(ord); f > 0 {
			wantKeys[info.ZoneIndex] = append(wantKeys[info.ZoneIndex], framework.ClassKey(f, ord))
			wantFree[info.NodeIndex]++
			wantCap[info.ZoneIndex] += int64(f)
		}
	}
	for z := int32(-1); z < int32(s.NumZones()); z++ {
		var got []int64
		for from := int64(0); ; {
			ord, node, key, ok := s.FirstFreeInZone(z, from)
			if !ok {
				break
			}
			if info, _ := s.Pod(ord); info.NodeIndex != node || key != framework.ClassKey(s.Free(ord), ord) {
				t.Fatalf("%s: zone %d: FirstFreeInZone gave pod %d on node %d with key %x", what, z, ord, node, key)
			}
			got, from = append(got, key), key+1
		}
		want := wantKeys[z]
		if d := cmp.Diff(sortedInt64(want), got, cmpEmpty); d != "" {
			t.Fatalf("%s: zone %d's index (-recount +got):\n%s", what, z, d)
		}
		rooms := 0
		for n := range int32(s.NumNodes()) {
			if zone, _, room := s.NodeRoom(n); room && zone == z {
				rooms++
			}
		}
		if got := s.ZoneFreeCapacity(z); got != wantCap[z] {
			t.Fatalf("%s: ZoneFreeCapacity(%d) = %d, recount %d", what, z, got, wantCap[z])
		}
		if got := s.NodesWithRoom(z); got != rooms {
			t.Fatalf("%s: NodesWithRoom(%d) = %d, recount %d", what, z, got, rooms)
		}
	}
	for n := range int32(s.NumNodes()) {
		if _, _, room := s.NodeRoom(n); room != (wantFree[n] > 0) {
			t.Fatalf("%s: NodeRoom(%s) says room %v, recount %d free candidates", what, s.NodeName(n), room, wantFree[n])
		}
	}
}

func sortedInt64(v []int64) []int64 {
	out := append([]int64(nil), v...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestZoneIndexBuiltWhenFirstRead: the zone index is built on its first
// read, after the state changed without it; a clone taken before that
// builds its own, and each then keeps its own current.
func TestZoneIndexBuiltWhenFirstRead(t *testing.T) {
	s := newState(t, 4)
	cluster(s, [][2]string{{"n1", "a"}, {"n2", "a"}, {"n3", "b"}}, []string{"n1", "n1", "n2", "n3", "n3", ""})
	s.Reserve(key("s1"), 5, "", []vsched.Placement{p(0, 4), p(3, 1)}, t0)
	s.Observe(src("s2", "1", 3, p(1, 2), p(4, 1)), t0)
	c := s.Clone()
	checkZoneIndex(t, s, "original, first read after changes")
	s.Reserve(key("s3"), 2, "", []vsched.Placement{p(2, 2)}, t0)
	checkZoneIndex(t, s, "original, after a reservation")
	c.Observe(src("s4", "1", 4, p(2, 1), p(5, 3)), t0)
	checkZoneIndex(t, c, "clone taken before the original's first read")
	checkZoneIndex(t, s, "original, after the clone's change")
}
