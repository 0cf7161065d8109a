package state

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// sourcesView renders what a state says of its sources and pods.
func sourcesView(s *State) string {
	out := fmt.Sprint(usedAll(s, 3))
	for _, k := range s.Sources() {
		ps, _ := s.Placements(k)
		out += fmt.Sprintf(" %s=%v/%d", k.Name, ps, s.PendingOf(k))
	}
	return out
}

// A clone shares the per-source records with its original until one of
// them changes one: every change, on either side, leaves the other as it
// was.
func TestCloneSharesSourcesUntilWritten(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*State)
	}{
		{"Observe", func(s *State) { s.Observe(src("a", "9", 2, p(2, 2)), t0) }},
		{"Observe new", func(s *State) { s.Observe(src("n", "9", 1, p(1, 1)), t0) }},
		{"Reserve", func(s *State) { s.Reserve(key("a"), 3, "1", []vsched.Placement{p(0, 3)}, t0) }},
		{"SetPending", func(s *State) { s.SetPending(key("a"), 4) }},
		{"ExpireOne", func(s *State) { s.ExpireOne(key("b")) }},
		{"DropReservations", func(s *State) { s.DropReservations() }},
		{"ExpireReservations", func(s *State) { s.ExpireReservations(t0.Add(time.Hour), time.Minute) }},
		{"Forget", func(s *State) { s.Forget(key("a"), t0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, changeClone := range []bool{false, true} {
				s := newState(t, 10)
				cluster(s, [][2]string{{"n1", "z1"}}, []string{"n1", "n1", "n1"})
				s.Observe(src("a", "1", 2, p(0, 1), p(1, 1)), t0)
				s.Observe(src("b", "2", 1, p(1, 1)), t0)
				s.Reserve(key("b"), 2, "2", []vsched.Placement{p(1, 1), p(2, 1)}, t0)
				s.SetPending(key("b"), 1)
				clone := s.Clone()
				changed, other := s, clone
				if changeClone {
					changed, other = clone, s
				}
				before := sourcesView(other)
				c.change(changed)
				if sourcesView(changed) == before {
					t.Fatalf("the change changed nothing: %s", before)
				}
				if d := cmp.Diff(before, sourcesView(other)); d != "" {
					t.Errorf("changing the clone %v changed the other side (-before +after):\n%s", changeClone, d)
				}
			}
		})
	}
}

// ChangedSince lists each source whose placements, holdings or vreplicas
// changed after the mark, once, sorted; a mark it cannot honour (another
// state's, or one the log was restarted past) says so.
func TestChangedSince(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n1", "z1"}}, []string{"n1", "n1"})
	s.Observe(src("a", "1", 1, p(0, 1)), t0)
	s.Observe(src("b", "2", 1, p(1, 1)), t0)
	s.Observe(src("c", "3", 1, p(1, 1)), t0)
	mark := s.ChangeMark()
	s.Reserve(key("c"), 2, "3", []vsched.Placement{p(1, 2)}, t0)
	s.Observe(src("a", "4", 1, p(1, 1)), t0)
	s.SetPending(key("b"), 1) // not a change of placements
	s.ExpireOne(key("c"))
	s.Forget(key("z"), t0) // unknown: nothing changes
	got, ok := s.ChangedSince(mark)
	if d := cmp.Diff([]types.NamespacedName{key("a"), key("c")}, got); !ok || d != "" {
		t.Errorf("ChangedSince = %v (ok %v) (-want +got):\n%s", got, ok, d)
	}
	if got, ok := s.ChangedSince(s.ChangeMark()); !ok || len(got) != 0 {
		t.Errorf("ChangedSince(now) = %v, %v; want nothing", got, ok)
	}
	if _, ok := newState(t, 10).ChangedSince(mark); ok {
		t.Error("another state's mark was honoured")
	}
	clone := s.Clone()
	for i := 0; i < 2*3+logSlack; i++ {
		s.Observe(src("a", fmt.Sprint(10+i), 1, p(0, 1)), t0)
	}
	if _, ok := s.ChangedSince(mark); ok {
		t.Error("a mark from before the log restarted was honoured")
	}
	if got, ok := clone.ChangedSince(mark); !ok || len(got) != 2 {
		t.Errorf("the clone's log = %v, %v; want it as it was when cloned", got, ok)
	}
	// A clone that changes a source logs on its own: a mark taken there
	// is no position in the original's log.
	s2 := newState(t, 10)
	s2.Observe(src("a", "1", 1), t0)
	c2 := s2.Clone()
	c2.Observe(src("b", "1", 1), t0)
	cmark := c2.ChangeMark()
	s2.Observe(src("c", "2", 1), t0)
	if got, ok := s2.Clone().ChangedSince(cmark); ok {
		t.Errorf("a mark from a clone's own log read as the original's: %v", got)
	}
	if got, ok := c2.ChangedSince(cmark); !ok || len(got) != 0 {
		t.Errorf("the clone's own mark: %v, %v", got, ok)
	}
}

// RoomMark grows when a pod may have gained room, and only then.
func TestRoomMark(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n1", "z1"}}, []string{"n1", "n1"})
	s.Observe(src("a", "1", 2, p(0, 2)), t0)
	for _, c := range []struct {
		name   string
		change func()
		grows  bool
	}{
		{"more on a pod", func() { s.Observe(src("a", "2", 3, p(0, 2), p(1, 1)), t0) }, false},
		{"pending only", func() { s.SetPending(key("a"), 1) }, false},
		{"a reservation taking nothing off", func() { s.Reserve(key("a"), 3, "2", []vsched.Placement{p(0, 3)}, t0) }, false},
		{"its status showing it", func() { s.Observe(src("a", "3", 3, p(0, 3)), t0) }, true},
		{"a pod event", func() { s.UpsertPod(mkPod(1, "n1")) }, true},
		{"forgotten", func() { s.Forget(key("a"), t0) }, true},
	} {
		before := s.RoomMark()
		c.change()
		if grew := s.RoomMark() != before; grew != c.grows {
			t.Errorf("%s: room mark grew %v, want %v", c.name, grew, c.grows)
		}
	}
}

// EachSourceSummary, Summary and HeldOn say, of every source, what
// EachSource says, each source with a slot of its own, through random
// observations, reservations, expiries, deletions, resizes (placements
// beyond the pods included) and clones that then change the records they
// share. SummaryAt says what Summary says whatever slot it is given.
func TestEachSourceSummaryMatchesEachSource(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	s := newState(t, 4)
	cluster(s, [][2]string{{"a0", "a"}}, []string{"a0", "a0", "a0", "a0"})
	for step := 0; step < 300; step++ {
		name := fmt.Sprint("s", rng.Intn(8))
		ps := []vsched.Placement{p(int32(rng.Intn(6)), 1+int32(rng.Intn(3))), p(int32(rng.Intn(200)), 1)}
		switch rng.Intn(5) {
		case 0:
			s.Observe(src(name, fmt.Sprint(step+1), 4, ps...), t0)
		case 1:
			s.Reserve(key(name), 4, fmt.Sprint(step), ps, t0)
		case 2:
			s.ExpireOne(key(name))
		case 3:
			s.Forget(key(name), t0)
		default:
			s.SetReplicas(int32(1 + rng.Intn(6)))
		}
		if rng.Intn(10) == 0 {
			s = s.Clone()
		}
		for slot := int32(-1); slot <= s.Slots(); slot++ {
			if _, ok := s.SummaryAt(key("unknown"), slot); ok {
				t.Fatalf("step %d: SummaryAt(unknown, %d) found a source", step, slot)
			}
		}
		slots := map[int32]string{}
		s.EachSource(func(k types.NamespacedName, n int32, ps []vsched.Placement, held []Held) {
			sum, _ := s.Summary(k)
			if other, taken := slots[sum.Slot]; taken || sum.Slot < 0 || sum.Slot >= s.Slots() {
				t.Fatalf("step %d: %s has slot %d (of %d), which %q has", step, k.Name, sum.Slot, s.Slots(), other)
			}
			slots[sum.Slot] = k.Name
			want := SourceSummary{VReplicas: n, Placements: ps, MaxOrdinal: -1, Slot: sum.Slot}
			for _, h := range held {
				want.Held += h.VReplicas
				want.MaxOrdinal = max(want.MaxOrdinal, h.Ordinal)
			}
			if d := cmp.Diff(append([]Held{}, held...), append([]Held{}, s.HeldOn(k)...)); d != "" {
				t.Fatalf("step %d: HeldOn(%s) (-EachSource +HeldOn):\n%s", step, k.Name, d)
			}
			var got SourceSummary
			s.EachSourceSummary(func(k2 types.NamespacedName, sum SourceSummary) {
				if k2 == k {
					got = sum
				}
			})
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("step %d: summary of %s (-from EachSource +EachSourceSummary):\n%s", step, k.Name, d)
			}
			if d := cmp.Diff(want, sum); d != "" {
				t.Fatalf("step %d: Summary(%s) (-from EachSource +Summary):\n%s", step, k.Name, d)
			}
			for slot := int32(-1); slot <= s.Slots(); slot++ {
				if at, _ := s.SummaryAt(k, slot); !cmp.Equal(want, at) {
					t.Fatalf("step %d: SummaryAt(%s, %d) (-from EachSource +SummaryAt):\n%s", step, k.Name, slot, cmp.Diff(want, at))
				}
			}
		})
	}
}

// derivedView renders what the derived indexes answer.
func derivedView(s *State) string {
	out := fmt.Sprint(s.Candidates(), s.FreeCandidates(), s.SchedulableNodes(), s.SchedulableZones(), s.GrowthZones())
	for n := int32(0); n < int32(s.NumNodes()); n++ {
		var free []int32
		s.EachFreeCandidate(n, func(ord int32) bool { free = append(free, ord); return true })
		zone, cand, room := s.NodeRoom(n)
		out += fmt.Sprint(" ", n, free, zone, cand, room)
	}
	for z := int32(-1); z < int32(s.NumZones()); z++ {
		ord, node, k, ok := s.FirstFreeInZone(z, 0)
		out += fmt.Sprint(" ", z, s.NodesInZone(z), s.NodesWithRoom(z), s.ZoneFreeCapacity(z), ord, node, k, ok)
	}
	return out
}

// A clone of a state whose derived indexes are current copies them instead
// of rebuilding them: it answers as a clone that rebuilds them, before and
// after the same decisions on both, and the original is left as it was.
func TestCloneCopiesCurrentIndexes(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	s := newState(t, 3)
	cluster(s, [][2]string{{"a0", "a"}, {"a1", "a"}, {"b0", "b"}, {"n", ""}}, []string{"a0", "a1", "b0", "n", "a0", "b0", "a1"})
	for step := 0; step < 100; step++ {
		name := fmt.Sprint("s", rng.Intn(6))
		ps := []vsched.Placement{p(int32(rng.Intn(7)), 1+int32(rng.Intn(3)))}
		s.Observe(src(name, fmt.Sprint(step+1), 3, ps...), t0)
		if rng.Intn(10) == 0 {
			s.SetDraining(int32(rng.Intn(7)), rng.Intn(2) == 0)
		}
		original := derivedView(s)
		copied, rebuilt := s.Clone(), s.Clone()
		rebuilt.invalidate()
		if copied.dirty || !rebuilt.dirty {
			t.Fatal("the clone of a current state did not copy its indexes")
		}
		for i := 0; i < 3; i++ {
			if d := cmp.Diff(derivedView(rebuilt), derivedView(copied)); d != "" {
				t.Fatalf("step %d, decision %d: (-rebuilt +copied):\n%s", step, i, d)
			}
			k, ps := key(fmt.Sprint("s", rng.Intn(8))), []vsched.Placement{p(int32(rng.Intn(7)), 1)}
			copied.Reserve(k, 1, "", ps, t0)
			rebuilt.Reserve(k, 1, "", ps, t0)
		}
		if d := cmp.Diff(original, derivedView(s)); d != "" {
			t.Fatalf("step %d: the original changed (-before +after):\n%s", step, d)
		}
	}
}

// A clone is read by another goroutine while its original goes on
// changing the records they share: the clone's view stays as it was, and
// under -race nothing is written that the clone reads.
func TestCloneReadWhileOriginalChanges(t *testing.T) {
	s := newState(t, 100)
	cluster(s, [][2]string{{"a0", "a"}, {"b0", "b"}}, []string{"a0", "b0", "a0", "b0"})
	for i := 0; i < 50; i++ {
		s.Observe(src(fmt.Sprint("s", i), "1", 2, p(int32(i%4), 2)), t0)
	}
	mark := s.ChangeMark()
	s.Reserve(key("s1"), 3, "1", []vsched.Placement{p(1, 3)}, t0)
	c := s.Clone()
	readView := func() string {
		changed, _ := c.ChangedSince(mark)
		sums := map[types.NamespacedName]SourceSummary{}
		c.EachSourceSummary(func(k types.NamespacedName, sum SourceSummary) { sums[k] = sum })
		out := fmt.Sprint(sourcesView(c), changed)
		for _, k := range c.Sources() {
			out += fmt.Sprint(k.Name, sums[k].Held, sums[k].MaxOrdinal, c.HeldOn(k))
		}
		return out
	}
	want := readView()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2000; i++ {
			k := fmt.Sprint("s", i%60)
			switch i % 4 {
			case 0:
				s.Observe(src(k, fmt.Sprint(2+i), 2, p(int32(i%4), 1), p(int32((i+1)%4), 1)), t0)
			case 1:
				s.Reserve(key(k), 1, "", []vsched.Placement{p(int32(i%4), 1)}, t0)
			case 2:
				s.ExpireOne(key(k))
			default:
				s.Forget(key(k), t0)
			}
		}
	}()
	for i := 0; i < 20; i++ {
		if got := readView(); got != want {
			t.Fatalf("read %d: the clone changed with its original", i)
		}
	}
	<-done
}

// Clone and original share the pods' names; each grows its pods after the
// clone (the original from another goroutine), and each names every pod
// it holds as its own: under -race neither writes a name the other reads.
func TestCloneSharesPodNamesBothWays(t *testing.T) {
	s := newState(t, 4)
	cluster(s, [][2]string{{"a0", "a"}, {"b0", "b"}}, []string{"a0", "b0"})
	c := s.Clone()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ord := int32(2); ord < 40; ord++ {
			s.SetReplicas(ord + 1)
			s.UpsertPod(mkPod(ord, "a0"))
		}
	}()
	c.AddVirtualPods(30)
	<-done
	for _, st := range []struct {
		name string
		s    *State
		pods int32
	}{{"original", s, 40}, {"clone", c, 32}} {
		for ord := int32(0); ord < st.pods; ord++ {
			info, ok := st.s.Pod(ord)
			if want := vsched.PodName(sts, ord); !ok || info.Name != want {
				t.Fatalf("%s: Pod(%d) = %q, %v; want %q", st.name, ord, info.Name, ok, want)
			}
		}
	}
}
