package statefulset

import (
	"errors"
	"testing"

	"github.com/vsched/vsched"
)

// Views that are behind, and reservations across terms: issue 10,
// observations 1 and 4 to 7. Each test reproduces what was seen on main.

// Observation 1: the first load after a start came from a lister whose
// informer had not synced. It listed nothing without an error, the scheduler
// took that as loaded, and a new source of 5 landed on a pod holding 10 of 10.
func TestUnsyncedListerIsNotReady(t *testing.T) {
	c, restart := filledThenStopped(t)
	c.store.SetSynced(false)
	s2 := restart()
	scheduleNotReady(t, c, s2, "the sources synced")
	// Neither does a resync take the empty list for the truth.
	if err := s2.Resync(quietCtx()); !errors.Is(err, vsched.ErrNotReady) {
		t.Fatalf("Resync while the sources have not synced = %v, want ErrNotReady", err)
	}
	if u := used(s2); len(u) != 0 {
		t.Fatalf("used = %v after a resync before the sources synced, want nothing", u)
	}

	c.store.SetSynced(true)
	wantPlacements(t, scheduleOK(t, s2, c, "b"), 1, 5)
}

func TestNewRequiresListerSynced(t *testing.T) {
	c := zones3(t, 1)
	_, err := c.tryStart(quietCtx(), func(cfg *Config) { cfg.ListerSynced = nil })
	if err == nil || err.Error() != "statefulset scheduler: ListerSynced is required (the sources' informer HasSynced)" {
		t.Fatalf("New without ListerSynced = %v", err)
	}
}

// Observation 4: leader A decides for x and x's write fails; B leads and
// writes y into the same room; A leads again within the reservation TTL and
// its reload kept x's old reservation, so x's next write overcommitted.
func TestReservationEndsWithLeadershipTerm(t *testing.T) {
	c := zones3(t, 3)
	profiles := lowestOrdinal(t)
	a := c.start(follower, func(cfg *Config) { cfg.Profiles = profiles })
	b := c.start(follower, func(cfg *Config) { cfg.Profiles = profiles })
	bucket := namedBucket("all")

	if err := a.Promote(bucket, nil); err != nil {
		t.Fatal(err)
	}
	c.store.create("x", 10)
	c.store.create("y", 10)
	ps, err := a.Schedule(quietCtx(), c.store.get("x"))
	if err != nil {
		t.Fatal(err)
	}
	wantPlacements(t, ps, 0, 10) // x's status write fails: never written
	a.Demote(bucket)

	if err := b.Promote(bucket, nil); err != nil {
		t.Fatal(err)
	}
	wantPlacements(t, scheduleOK(t, b, c, "y"), 0, 10)
	b.Demote(bucket)

	if err := a.Promote(bucket, nil); err != nil {
		t.Fatal(err)
	}
	x := scheduleOK(t, a, c, "x")
	wantPlacements(t, x, 1, 10)
	if u := used(a); u[0] != 10 || u[1] != 10 {
		t.Fatalf("used = %v, want 10 on adapter-0 (y) and 10 on adapter-1 (x)", u)
	}
}

// Observation 5: Resync lists before taking the lock and forgot a source
// created, scheduled, written and observed in between, handing its room to
// the next source.
func TestResyncKeepsSourceObservedWhileListing(t *testing.T) {
	c := zones3(t, 3)
	var s *Scheduler
	inWindow := func() {}
	s = c.start(func(cfg *Config) {
		cfg.Profiles = lowestOrdinal(t)
		cfg.Lister = func() ([]vsched.VPod, error) {
			list, err := c.store.List()
			inWindow()
			return list, err
		}
	})
	inWindow = func() {
		inWindow = func() {}
		c.store.create("late", 10)
		scheduleOK(t, s, c, "late")
		s.Observe(c.store.get("late"))
	}
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	if u := used(s); u[0] != 10 {
		t.Fatalf("used = %v after a resync that listed before 'late' existed; want adapter-0 = 10", u)
	}
	c.store.create("next", 4)
	wantPlacements(t, scheduleOK(t, s, c, "next"), 1, 4)
}

// Observation 6: Schedule ignored that the version it was given is older than
// one already seen and reserved from it, replacing the newer decision.
func TestScheduleRefusesStaleVersion(t *testing.T) {
	c := zones3(t, 3)
	s := c.start(func(cfg *Config) { cfg.Profiles = lowestOrdinal(t) })
	c.store.create("a", 4)
	old := c.store.get("a")
	scheduleOK(t, s, c, "a")
	s.Observe(c.store.get("a"))
	c.store.scale("a", 7)
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 7)
	newer, _ := reservation(s, "a")

	ps, err := s.Schedule(quietCtx(), old)
	if !errors.Is(err, vsched.ErrStale) || ps != nil {
		t.Fatalf("Schedule of an older version = [%s], %v; want nil, ErrStale", short(ps), err)
	}
	if r, ok := reservation(s, "a"); !ok || r.BasedOn != newer.BasedOn || short(r.Placements) != short(newer.Placements) {
		t.Fatalf("reservation after a stale call = %+v (ok %v), want %+v", r, ok, newer)
	}
}

// Observation 7: a Schedule call in flight when the source was deleted
// re-created its reservation after Forget, and Resync kept it while younger
// than the TTL: room held for nothing.
func TestForgetWinsOverDecisionInFlight(t *testing.T) {
	c := zones3(t, 3)
	s := c.start(func(cfg *Config) { cfg.Profiles = lowestOrdinal(t) })
	c.store.create("gone", 6)
	inFlight := c.store.get("gone")
	s.Observe(inFlight) // the source informer's add event
	c.store.remove("gone")
	s.Forget(srcKey("gone"))

	ps, err := s.Schedule(quietCtx(), inFlight)
	if !errors.Is(err, vsched.ErrStale) || ps != nil {
		t.Fatalf("Schedule of a deleted source = [%s], %v; want nil, ErrStale", short(ps), err)
	}
	// A lagging list that still shows it does not bring it back either.
	s.Observe(inFlight)
	if u := used(s); len(u) != 0 {
		t.Fatalf("used = %v after the source was deleted, want nothing", u)
	}
	c.store.create("next", 10)
	wantPlacements(t, scheduleOK(t, s, c, "next"), 0, 10)

	// The same name created again is a new object, with a newer version.
	c.store.create("gone", 2)
	wantPlacements(t, scheduleOK(t, s, c, "gone"), 1, 2)
}
