package state

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

func TestCloneForCountsEveryoneButKnowsOnlyItsSources(t *testing.T) {
	s := newState(t, 4)
	cluster(s, [][2]string{{"n0", "a"}}, []string{"n0", "n0"})
	s.Observe(src("a", "1", 3, p(0, 3)), t0)
	s.Observe(src("b", "1", 2, p(1, 2)), t0)
	c := s.CloneFor([]types.NamespacedName{key("a"), key("a"), key("missing")})
	if got := c.Sources(); len(got) != 1 || got[0] != key("a") {
		t.Fatalf("Sources() = %v, want only a", got)
	}
	if c.Free(0) != 1 || c.Free(1) != 2 || c.TotalUsed() != 5 {
		t.Fatalf("free %d/%d, total %d: the clone must count b too", c.Free(0), c.Free(1), c.TotalUsed())
	}
	// Moving a in the clone changes the clone only.
	c.Reserve(key("a"), 3, "1", []vsched.Placement{p(1, 2), p(0, 1)}, t0)
	if c.Free(1) != 0 || s.Free(0) != 1 || s.Free(1) != 2 {
		t.Fatalf("clone free %d/%d, original %d/%d", c.Free(0), c.Free(1), s.Free(0), s.Free(1))
	}
	if ps, _ := s.Placements(key("a")); len(ps) != 1 {
		t.Fatalf("original's placements of a = %v", ps)
	}
	if !s.Knows(key("b")) || c.Knows(key("b")) || s.Knows(key("missing")) {
		t.Fatal("Knows is wrong")
	}
}

// Clone copies State field by field; a field added to State must be added
// to cloneTopology (or to Clone's handling of sources) too.
func TestCloneCoversEveryField(t *testing.T) {
	known := map[string]bool{
		"Mutex": true, "opts": true, "replicas": true, "pods": true, "names": true, "nodes": true, "nodeIdx": true,
		"zones": true, "zoneIdx": true, "sources": true, "drainMemory": true, "outside": true, "strays": true, "beyond": true, "highWater": true,
		"dirty": true, "candidates": true, "freeCands": true, "schedNodes": true, "schedZones": true, "growZones": true,
		"totalUsed": true, "nodeCands": true, "firstFree": true, "seq": true, "newestRV": true, "deleted": true, "pendingSet": true,
		// The zone index is cloned copy-on-write; seekFn is made per State.
		"zoneFree": true, "zoneFreeSum": true, "zoneNodes": true, "nodeFree": true, "zoneRoom": true, "seekFn": true, "holdIndex": true, "touchBuf": true, "seekKey": true, "seekOK": true,
		// A clone takes the fenced size as its plain size (observed) and
		// drops the fence, so a simulation resizes it freely.
		"observed": true, "observedRV": true, "fenced": true, "fence": true, "fenceRV": true, "fenceFromRV": true,
		// The change log is shared up to its end; Clone gives both sides
		// a new gen, since the per-source records are shared.
		"changes": true, "epoch": true, "roomSeq": true, "gen": true, "slots": true, "freeSlots": true, "logShared": true,
		// Clone copies the records by slot with the map; CloneFor starts
		// them empty (SummaryAt falls back to the map).
		"bySlot": true,
		// The dimensions are shared (replaced, never changed); the use
		// is copied.
		"costs": true,
	}
	typ := reflect.TypeOf(State{})
	for i := 0; i < typ.NumField(); i++ {
		if name := typ.Field(i).Name; !known[name] {
			t.Errorf("State has a field %q that Clone does not know about: copy it in cloneTopology (or rebuild it), then list it here", name)
		}
	}
}
