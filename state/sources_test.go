package state

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name         string
		in           []vsched.Placement
		want         []vsched.Placement
		wantProblems []string // substrings, one per problem, in order
	}{
		{name: "nil", want: []vsched.Placement{}},
		{
			name: "sorted by ordinal, not by name",
			in:   []vsched.Placement{p(10, 1), p(2, 2), p(0, 3)},
			want: []vsched.Placement{p(0, 3), p(2, 2), p(10, 1)},
		},
		{
			name: "zero counts dropped silently",
			in:   []vsched.Placement{p(1, 0), p(0, 2), named("garbage", 0)},
			want: []vsched.Placement{p(0, 2)},
		},
		{
			name:         "duplicates summed",
			in:           []vsched.Placement{p(1, 2), p(0, 1), p(1, 3)},
			want:         []vsched.Placement{p(0, 1), p(1, 5)},
			wantProblems: []string{`placements[2]: pod "adapter-1" listed twice`},
		},
		{
			name:         "negative dropped",
			in:           []vsched.Placement{p(0, -1), p(1, 1)},
			want:         []vsched.Placement{p(1, 1)},
			wantProblems: []string{`placements[0] (pod "adapter-0"): negative vreplicas -1 dropped`},
		},
		{
			name: "foreign and malformed names reported",
			in: []vsched.Placement{
				named("web-1", 1), named("adapter", 1), named("adapter-", 1), named("adapter-01", 1),
				named("adapter--1", 1), named("adapterx-1", 1), named("adapter-1-2", 1), named("", 1),
				named("adapter-99999999999", 1), p(3, 4),
			},
			want: []vsched.Placement{p(3, 4)},
			wantProblems: []string{
				`pod "web-1" is not a pod of StatefulSet "adapter"`, `"adapter" is not`, `"adapter-" is not`, `"adapter-01" is not`,
				`"adapter--1" is not`, `"adapterx-1" is not`, `"adapter-1-2" is not`, `"" is not`, `"adapter-99999999999" is not`,
			},
		},
		{
			name: "node and zone kept from the first entry",
			in: []vsched.Placement{
				{PodName: "adapter-1", NodeName: "n1", ZoneName: "z1", VReplicas: 1},
				{PodName: "adapter-1", NodeName: "n2", ZoneName: "z2", VReplicas: 1},
			},
			want:         []vsched.Placement{{PodName: "adapter-1", NodeName: "n1", ZoneName: "z1", VReplicas: 2}},
			wantProblems: []string{"listed twice"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t, 5)
			in := append([]vsched.Placement(nil), tc.in...)
			got, problems := s.Normalize(in)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Normalize() (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.in, in); d != "" {
				t.Errorf("Normalize modified its input (-before +after):\n%s", d)
			}
			if len(problems) != len(tc.wantProblems) {
				t.Fatalf("problems = %q, want %d matching %q", problems, len(tc.wantProblems), tc.wantProblems)
			}
			for i, w := range tc.wantProblems {
				if !strings.Contains(problems[i], w) {
					t.Errorf("problems[%d] = %q, want it to contain %q", i, problems[i], w)
				}
			}
		})
	}
}

func TestOutcomeString(t *testing.T) {
	got := []string{NoReservation.String(), Waiting.String(), Committed.String(), Overridden.String(), Stale.String(), Outcome(9).String()}
	want := []string{"NoReservation", "Waiting", "Committed", "Overridden", "Stale", "Outcome(9)"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestObserve walks each Observe outcome: before is what the source
// showed first (nil for nothing), reserve the decision taken from it (nil for
// none), then obs is observed.
func TestObserve(t *testing.T) {
	reserved := []vsched.Placement{p(0, 2), p(1, 1)}
	type want struct {
		Outcome     Outcome
		Placements  []vsched.Placement
		Used        []int32
		Reserved    bool
		VReplicas   int64
		Committed   []vsched.Placement // what the source's status showed, as recorded
		CommittedRV string
	}
	tests := []struct {
		name    string
		before  *vpod
		reserve *Reservation
		obs     *vpod
		want    want
	}{
		{
			name: "no reservation",
			obs:  src("a", "5", 3, p(2, 3)),
			want: want{Outcome: NoReservation, Placements: []vsched.Placement{p(2, 3)}, Used: []int32{0, 0, 3}, VReplicas: 3, Committed: []vsched.Placement{p(2, 3)}, CommittedRV: "5"},
		},
		{
			name:    "waiting at the same version",
			before:  src("a", "5", 3, p(2, 3)),
			reserve: &Reservation{Placements: reserved, BasedOn: "5"},
			obs:     src("a", "5", 3, p(2, 3)),
			want:    want{Outcome: Waiting, Placements: reserved, Used: []int32{2, 1, 0}, Reserved: true, VReplicas: 3, Committed: []vsched.Placement{p(2, 3)}, CommittedRV: "5"},
		},
		{
			name:    "waiting at an older numeric version",
			reserve: &Reservation{Placements: reserved, BasedOn: "10"},
			obs:     src("a", "9", 3, p(2, 3)),
			want:    want{Outcome: Waiting, Placements: reserved, Used: []int32{2, 1, 0}, Reserved: true, VReplicas: 3, Committed: []vsched.Placement{p(2, 3)}, CommittedRV: "9"},
		},
		{
			name:    "committed",
			before:  src("a", "5", 3),
			reserve: &Reservation{Placements: reserved, BasedOn: "5"},
			// Same counts, other order, other node/zone, a zero entry.
			obs:  src("a", "6", 3, vsched.Placement{PodName: "adapter-1", NodeName: "n", VReplicas: 1}, p(3, 0), p(0, 2)),
			want: want{Outcome: Committed, Placements: []vsched.Placement{p(0, 2), {PodName: "adapter-1", NodeName: "n", VReplicas: 1}}, Used: []int32{2, 1, 0}, VReplicas: 3, Committed: []vsched.Placement{p(0, 2), {PodName: "adapter-1", NodeName: "n", VReplicas: 1}}, CommittedRV: "6"},
		},
		{
			name:    "overridden: the lister wins",
			before:  src("a", "5", 3),
			reserve: &Reservation{Placements: reserved, BasedOn: "5"},
			obs:     src("a", "6", 4, p(2, 4)),
			want:    want{Outcome: Overridden, Placements: []vsched.Placement{p(2, 4)}, Used: []int32{0, 0, 4}, VReplicas: 4, Committed: []vsched.Placement{p(2, 4)}, CommittedRV: "6"},
		},
		{
			name:    "overridden by a subset",
			before:  src("a", "5", 3),
			reserve: &Reservation{Placements: reserved, BasedOn: "5"},
			obs:     src("a", "6", 3, p(0, 2)),
			want:    want{Outcome: Overridden, Placements: []vsched.Placement{p(0, 2)}, Used: []int32{2, 0, 0}, VReplicas: 3, Committed: []vsched.Placement{p(0, 2)}, CommittedRV: "6"},
		},
		{
			name:   "stale without a reservation",
			before: src("a", "7", 2, p(1, 2)),
			obs:    src("a", "6", 9, p(2, 9)),
			want:   want{Outcome: Stale, Placements: []vsched.Placement{p(1, 2)}, Used: []int32{0, 2, 0}, VReplicas: 2, Committed: []vsched.Placement{p(1, 2)}, CommittedRV: "7"},
		},
		{
			name:    "stale with a reservation",
			before:  src("a", "7", 2, p(1, 2)),
			reserve: &Reservation{Placements: reserved, BasedOn: "7"},
			obs:     src("a", "6", 9, p(2, 9)),
			want:    want{Outcome: Stale, Placements: reserved, Used: []int32{2, 1, 0}, Reserved: true, VReplicas: 3, Committed: []vsched.Placement{p(1, 2)}, CommittedRV: "7"},
		},
		{
			name:    "opaque versions: equal waits",
			before:  src("a", "xyz", 3),
			reserve: &Reservation{Placements: reserved, BasedOn: "xyz"},
			obs:     src("a", "xyz", 3),
			want:    want{Outcome: Waiting, Placements: reserved, Used: []int32{2, 1, 0}, Reserved: true, VReplicas: 3, Committed: []vsched.Placement{}, CommittedRV: "xyz"},
		},
		{
			name:    "opaque versions: any other is newer",
			before:  src("a", "xyz", 3),
			reserve: &Reservation{Placements: reserved, BasedOn: "xyz"},
			obs:     src("a", "abc", 3, reserved...),
			want:    want{Outcome: Committed, Placements: reserved, Used: []int32{2, 1, 0}, VReplicas: 3, Committed: reserved, CommittedRV: "abc"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(t, 5)
			cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0"})
			if tc.before != nil {
				if got := s.Observe(tc.before, t0); got != NoReservation {
					t.Fatalf("first Observe = %v", got)
				}
			}
			if r := tc.reserve; r != nil {
				s.Reserve(key("a"), vsched.TotalVReplicas(r.Placements), r.BasedOn, r.Placements, t0)
			}
			out := s.Observe(tc.obs, t0.Add(time.Second))
			ps, _ := s.Placements(key("a"))
			_, reservedNow := s.ReservationOf(key("a"))
			src := s.sources[key("a")]
			got := want{out, ps, usedAll(s, 3), reservedNow, s.TotalVReplicas(), src.committed, src.committedRV}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestReserveCountsAtOnce(t *testing.T) {
	s := newState(t, 3)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0"})
	s.Observe(src("a", "1", 1, p(0, 1)), t0)
	if s.FreeCandidates() != 2 {
		t.Fatalf("FreeCandidates() = %d, want 2", s.FreeCandidates())
	}
	ps := []vsched.Placement{p(0, 3), p(1, 2)}
	s.Reserve(key("a"), 5, "1", ps, t0)
	ps[0].VReplicas = 99 // the state keeps its own copy
	type view struct {
		Free      []int32
		FreeCands int
		Res       Reservation
		VReplicas int64
	}
	res, ok := s.ReservationOf(key("a"))
	if !ok {
		t.Fatal("no reservation")
	}
	got := view{freeAll(s, 2), s.FreeCandidates(), res, s.TotalVReplicas()}
	want := view{[]int32{0, 1}, 1, Reservation{Placements: []vsched.Placement{p(0, 3), p(1, 2)}, BasedOn: "1", At: t0}, 5}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// A source first seen through its reservation.
	s.Reserve(key("b"), 1, "", []vsched.Placement{p(1, 1)}, t0)
	if s.FreeCandidates() != 0 || s.Free(1) != 0 {
		t.Errorf("after reserving b: FreeCandidates %d, Free(1) %d", s.FreeCandidates(), s.Free(1))
	}
	if _, ok := s.ReservationOf(key("c")); ok {
		t.Error("reservation for an unknown source")
	}
	if _, ok := s.Placements(key("c")); ok {
		t.Error("placements for an unknown source")
	}
}

// A reservation can only hold this StatefulSet's pods; a foreign name must
// not take capacity from the pod with the same ordinal.
func TestReserveIgnoresForeignPods(t *testing.T) {
	s := newState(t, 3)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0"})
	s.Reserve(key("a"), 3, "1", []vsched.Placement{named("web-1", 2), named("adapter-x", 1), p(0, 1)}, t0)
	if d := cmp.Diff([]int32{1, 0}, usedAll(s, 2)); d != "" {
		t.Errorf("Used (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]types.NamespacedName(nil), s.SourcesOn(1)); d != "" {
		t.Errorf("SourcesOn(1) (-want +got):\n%s", d)
	}
}

func TestExpire(t *testing.T) {
	s := newState(t, 5)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0"})
	for _, name := range []string{"a", "b", "c", "d"} {
		s.Observe(src(name, "1", 1, p(0, 1)), t0)
	}
	s.Reserve(key("b"), 2, "1", []vsched.Placement{p(1, 2)}, t0)
	s.Reserve(key("a"), 2, "1", []vsched.Placement{p(1, 2)}, t0.Add(10*time.Second))
	s.Reserve(key("c"), 2, "1", []vsched.Placement{p(1, 2)}, t0.Add(time.Minute))
	if d := cmp.Diff([]int32{1, 6}, usedAll(s, 2)); d != "" {
		t.Fatalf("Used before expiry (-want +got):\n%s", d)
	}
	// At t0+70s with a 60s ttl, reservations made at or before t0+10s go.
	got := s.ExpireReservations(t0.Add(70*time.Second), time.Minute)
	if d := cmp.Diff([]types.NamespacedName{key("a"), key("b")}, got); d != "" {
		t.Errorf("ExpireReservations (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int32{3, 2}, usedAll(s, 2)); d != "" {
		t.Errorf("Used after expiry (-want +got):\n%s", d)
	}
	if got := s.ExpireReservations(t0.Add(70*time.Second), time.Minute); len(got) != 0 {
		t.Errorf("second ExpireReservations = %v", got)
	}
	s.ExpireOne(key("d")) // no reservation
	s.ExpireOne(key("zz"))
	s.ExpireOne(key("c"))
	if d := cmp.Diff([]int32{4, 0}, usedAll(s, 2)); d != "" {
		t.Errorf("Used after ExpireOne (-want +got):\n%s", d)
	}
	if _, ok := s.ReservationOf(key("c")); ok {
		t.Error("ExpireOne left the reservation")
	}
}

func TestResync(t *testing.T) {
	const ttl = time.Minute
	now := t0.Add(10 * time.Minute)
	build := func(t *testing.T) *State {
		s := newState(t, 10)
		cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0"})
		for _, name := range []string{"committed", "overridden", "waiting", "gone", "young", "old", "plain"} {
			s.Observe(src(name, "1", 1, p(0, 1)), t0)
		}
		s.Reserve(key("committed"), 2, "1", []vsched.Placement{p(1, 2)}, now)
		s.Reserve(key("overridden"), 2, "1", []vsched.Placement{p(1, 2)}, now)
		s.Reserve(key("waiting"), 2, "1", []vsched.Placement{p(1, 2)}, now)
		s.Reserve(key("young"), 2, "1", []vsched.Placement{p(2, 2)}, now.Add(-ttl+time.Second))
		s.Reserve(key("old"), 2, "1", []vsched.Placement{p(2, 2)}, now.Add(-ttl))
		s.Reserve(key("new"), 3, "", []vsched.Placement{p(2, 3)}, now) // never listed yet
		return s
	}
	list := []vsched.VPod{
		src("committed", "2", 2, p(1, 2)),
		src("overridden", "2", 1, p(2, 1)),
		src("waiting", "1", 1, p(0, 1)),
		src("plain", "3", 2, p(0, 2)),
		src("listed-only", "4", 1, p(1, 1)),
		nil,
	}
	wantRes := ResyncResult{
		Forgotten:  []types.NamespacedName{key("gone"), key("old")},
		Overridden: []types.NamespacedName{key("overridden")},
		Committed:  1,
	}
	wantSources := []types.NamespacedName{key("committed"), key("listed-only"), key("new"), key("overridden"), key("plain"), key("waiting"), key("young")}
	// committed: 1@1; overridden: 1@2; waiting: 2@1; plain: 2@0;
	// listed-only: 1@1; young: 2@2; new: 3@2.
	wantUsed := []int32{2, 5, 6}
	r := rand.New(rand.NewSource(1))
	for i := range 10 {
		s := build(t)
		shuffled := append([]vsched.VPod(nil), list...)
		if i > 0 {
			r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		}
		got := s.Resync(shuffled, now, ttl)
		if d := cmp.Diff(wantRes, got); d != "" {
			t.Errorf("order %d: Resync (-want +got):\n%s", i, d)
		}
		if d := cmp.Diff(wantSources, s.Sources()); d != "" {
			t.Errorf("order %d: Sources() (-want +got):\n%s", i, d)
		}
		if d := cmp.Diff(wantUsed, usedAll(s, 3)); d != "" {
			t.Errorf("order %d: Used (-want +got):\n%s", i, d)
		}
	}
}

// A lister that shows two versions of one source yields the newer, in
// whichever order they come.
func TestResyncDuplicateVersions(t *testing.T) {
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		s := newState(t, 10)
		cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0"})
		s.Observe(src("a", "5", 1, p(0, 1)), t0)
		s.Reserve(key("a"), 2, "5", []vsched.Placement{p(1, 2)}, t0)
		versions := []vsched.VPod{src("a", "5", 1, p(0, 1)), src("a", "6", 2, p(1, 2))}
		res := s.Resync([]vsched.VPod{versions[order[0]], versions[order[1]]}, t0, time.Minute)
		if res.Committed != 1 {
			t.Errorf("order %v: Committed = %d, want 1", order, res.Committed)
		}
		if d := cmp.Diff([]int32{0, 2}, usedAll(s, 2)); d != "" {
			t.Errorf("order %v: Used (-want +got):\n%s", order, d)
		}
	}
}

func TestForget(t *testing.T) {
	s := newState(t, 3)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0"})
	s.Observe(src("a", "1", 3, p(0, 3)), t0)
	s.Reserve(key("b"), 1, "", []vsched.Placement{p(0, 1)}, t0)
	s.SetPending(key("b"), 4)
	if s.FreeCandidates() != 0 {
		t.Fatalf("FreeCandidates() = %d, want 0", s.FreeCandidates())
	}
	if !s.Forget(key("a")) {
		t.Error("Forget(a) = false")
	}
	if s.Forget(key("a")) {
		t.Error("second Forget(a) = true")
	}
	if s.Free(0) != 2 || s.FreeCandidates() != 1 {
		t.Errorf("after Forget(a): Free(0) %d, FreeCandidates %d", s.Free(0), s.FreeCandidates())
	}
	s.Forget(key("b"))
	if _, total := s.Pending(); total != 0 || s.TotalUsed() != 0 || len(s.Sources()) != 0 {
		t.Errorf("state not empty after forgetting everything")
	}
}

func TestSourcesOn(t *testing.T) {
	s := newState(t, 10)
	cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0"})
	s.Observe(src("c", "1", 2, p(0, 1), p(1, 1)), t0)
	s.Observe(src("a", "1", 1, p(1, 1)), t0)
	s.Observe(&vpod{key: types.NamespacedName{Namespace: "aa", Name: "z"}, vreplicas: 1, placements: []vsched.Placement{p(1, 1)}, rv: "1"}, t0)
	// b's committed placements are on pod 0, its reservation on pod 2:
	// only what counts is reported.
	s.Observe(src("b", "1", 1, p(0, 1)), t0)
	s.Reserve(key("b"), 1, "1", []vsched.Placement{p(2, 1)}, t0)
	got := [][]types.NamespacedName{s.SourcesOn(0), s.SourcesOn(1), s.SourcesOn(2), s.SourcesOn(3)}
	want := [][]types.NamespacedName{
		{key("c")},
		{{Namespace: "aa", Name: "z"}, key("a"), key("c")},
		{key("b")},
		nil,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestPending(t *testing.T) {
	s := newState(t, 10)
	s.SetPending(key("unknown"), 3) // ignored: nothing known to hang it on
	s.Observe(src("a", "1", 5), t0)
	s.Observe(src("b", "1", 2), t0)
	s.Observe(src("c", "1", 1), t0)
	s.SetPending(key("a"), 5)
	s.SetPending(key("b"), 2)
	s.SetPending(key("c"), 0)
	pending, total := s.Pending()
	if d := cmp.Diff(map[types.NamespacedName]int32{key("a"): 5, key("b"): 2}, pending); d != "" {
		t.Errorf("Pending() (-want +got):\n%s", d)
	}
	if total != 7 || s.PendingOf(key("a")) != 5 || s.PendingOf(key("unknown")) != 0 {
		t.Errorf("total %d, PendingOf(a) %d, PendingOf(unknown) %d", total, s.PendingOf(key("a")), s.PendingOf(key("unknown")))
	}
	if s.TotalVReplicas() != 8 {
		t.Errorf("TotalVReplicas() = %d, want 8", s.TotalVReplicas())
	}
}
