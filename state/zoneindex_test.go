package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"

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
