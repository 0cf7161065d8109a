package statefulset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"k8s.io/client-go/informers"
	clocktesting "k8s.io/utils/clock/testing"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

// lowestOrdinal fills pods in ordinal order, which makes capacity accounting
// visible: a vreplica lands on adapter-0 unless something counts there.
func lowestOrdinal(t testing.TB) config.ProfilesSource {
	return profilesFromData(t, map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority"}]`}, nil)
}

// reservationCluster is zones3(3) with capacity 10 and the lowest-ordinal
// policy, where a (6) is decided but its status not written, and b (6) is
// decided after it.
func reservationCluster(t *testing.T, opts ...startOpts) (*kubeCluster, *Scheduler) {
	c := zones3(t, 3)
	s := c.start(append([]startOpts{func(cfg *Config) { cfg.Profiles = lowestOrdinal(t) }}, opts...)...)
	c.store.create("a", 6)
	c.store.create("b", 6)
	a, err := s.Schedule(quietCtx(), c.store.get("a"))
	if err != nil {
		t.Fatal(err)
	}
	wantPlacements(t, a, 0, 6)
	// a's status is not written yet; its decision must count regardless.
	b := scheduleOK(t, s, c, "b")
	wantPlacements(t, b, 0, 4, 1, 2)
	return c, s
}

// filledThenStopped is zones3(3) with capacity 10 and the lowest-ordinal
// policy, where a first scheduler placed a (10) on adapter-0 and stopped;
// restart starts the next one with the same policy.
func filledThenStopped(t *testing.T) (c *kubeCluster, restart func() *Scheduler) {
	t.Helper()
	c = zones3(t, 3)
	profiles := lowestOrdinal(t)
	withProfiles := func(cfg *Config) { cfg.Profiles = profiles }
	s1 := c.start(withProfiles)
	c.store.create("a", 10)
	wantPlacements(t, scheduleOK(t, s1, c, "a"), 0, 10)
	c.stop(s1)
	return c, func() *Scheduler { return c.start(withProfiles) }
}

func TestReservationCountsBeforeStatusIsWritten(t *testing.T) {
	_, s := reservationCluster(t)
	if _, ok := reservation(s, "a"); !ok {
		t.Fatal("a has no reservation")
	}
	if u := used(s); u[0] != 10 || u[1] != 2 {
		t.Fatalf("used = %v, want adapter-0 full (10) and 2 on adapter-1", u)
	}
}

func TestReservationCommittedWhenListerShowsIt(t *testing.T) {
	c, s := reservationCluster(t)
	resyncDropsReservation(t, c, s, placements(0, 6), "a list showing it written")
	if u := used(s); u[0] != 10 || u[1] != 2 {
		t.Fatalf("used = %v after commit, want unchanged", u)
	}
}

func TestReservationOverriddenByNewerStatus(t *testing.T) {
	c, s := reservationCluster(t)
	// Someone else (an older controller, a person) wrote other placements.
	resyncDropsReservation(t, c, s, placements(2, 6), "a newer status with other placements")
	if u := used(s); u[0] != 4 || u[1] != 2 || u[2] != 6 {
		t.Fatalf("used = %v, want the status's placements for a", u)
	}
	// Observe (an informer event) resolves it the same way.
	c2, s2 := reservationCluster(t)
	s2.Observe(c2.store.writeStatus("a", placements(2, 6)))
	if u := used(s2); u[0] != 4 || u[2] != 6 {
		t.Fatalf("after Observe, used = %v", u)
	}
}

// resyncDropsReservation writes a's status and resyncs: the list ends a's
// reservation, whatever the status holds.
func resyncDropsReservation(t *testing.T, c *kubeCluster, s *Scheduler, ps []vsched.Placement, what string) {
	t.Helper()
	c.store.writeStatus("a", ps)
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	if _, ok := reservation(s, "a"); ok {
		t.Fatalf("a's reservation survived %s", what)
	}
}

func TestForgetFreesReservedCapacity(t *testing.T) {
	c, s := reservationCluster(t)
	c.store.remove("a")
	s.Forget(srcKey("a"))
	if u := used(s); u[0] != 4 {
		t.Fatalf("used = %v after forgetting a, want only b's 4 on adapter-0", u)
	}
	c.store.create("c", 6)
	wantPlacements(t, scheduleOK(t, s, c, "c"), 0, 6)
}

func TestReservationExpiresAfterTTL(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c, s := reservationCluster(t, func(cfg *Config) { cfg.Clock = clk; cfg.ReservationTTL = time.Minute })
	resync := func() {
		t.Helper()
		if err := s.Resync(quietCtx()); err != nil {
			t.Fatal(err)
		}
	}

	clk.SetTime(clk.Now().Add(59 * time.Second))
	resync()
	if _, ok := reservation(s, "a"); !ok {
		t.Fatal("a's reservation expired before its TTL")
	}

	clk.SetTime(clk.Now().Add(time.Second))
	resync()
	if _, ok := reservation(s, "a"); ok {
		t.Fatal("a's reservation outlived its TTL")
	}
	// a falls back to its status, which is empty: adapter-0 has b's 4.
	if u := used(s); u[0] != 4 {
		t.Fatalf("used = %v after expiry", u)
	}
	// a's next call decides again from its status.
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 6)
}

func TestRepeatedDecisionRenewsReservation(t *testing.T) {
	// The controller asked again (its status write failed and it
	// retried) and got the same answer: the TTL counts from the latest
	// answer, or the capacity could go to another source just before the
	// retried write lands.
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c, s := reservationCluster(t, func(cfg *Config) { cfg.Clock = clk; cfg.ReservationTTL = time.Minute })
	first, _ := reservation(s, "a")

	clk.SetTime(clk.Now().Add(50 * time.Second))
	ps, err := s.Schedule(quietCtx(), c.store.get("a"))
	if err != nil {
		t.Fatal(err)
	}
	wantPlacements(t, ps, 0, 6)
	renewed, ok := reservation(s, "a")
	if !ok || !renewed.At.After(first.At) || renewed.BasedOn != first.BasedOn {
		t.Fatalf("reservation after the repeated call = %+v (ok %v), first %+v; want renewed At, same BasedOn", renewed, ok, first)
	}

	clk.SetTime(clk.Now().Add(20 * time.Second)) // 70 s after the first answer
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	if _, ok := reservation(s, "a"); !ok {
		t.Fatal("renewed reservation expired 20 s after it was renewed")
	}
}

// staleLister lists a fixed, older snapshot of the sources.
type staleLister struct {
	mu   sync.Mutex
	snap []vsched.VPod
	live func() ([]vsched.VPod, error)
}

func (l *staleLister) list() ([]vsched.VPod, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.snap != nil {
		return l.snap, nil
	}
	return l.live()
}

func (l *staleLister) freeze(snap ...vsched.VPod) {
	l.mu.Lock()
	l.snap = snap
	l.mu.Unlock()
}

func TestStaleListerKeepsReservation(t *testing.T) {
	lister := &staleLister{}
	c, s := reservationCluster(t, func(cfg *Config) {
		lister.live = cfg.Lister // the store's
		cfg.Lister = lister.list
	})
	decidedFrom := c.store.get("a") // the version a was decided from
	olderB := c.store.get("b")

	// The status is written, but the lister still shows the version the
	// decision was made from: the reservation keeps counting.
	c.store.writeStatus("a", placements(0, 6))
	lister.freeze(decidedFrom, olderB)
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	if _, ok := reservation(s, "a"); !ok {
		t.Fatal("a lagging lister dropped a's reservation")
	}
	if u := used(s); u[0] != 10 {
		t.Fatalf("used = %v with a lagging lister", u)
	}

	// The lister catches up: committed.
	lister.freeze(c.store.get("a"), c.store.get("b"))
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	if _, ok := reservation(s, "a"); ok {
		t.Fatal("reservation not committed once the lister showed the write")
	}

	// And a version older than one already seen is ignored, not taken for
	// the status: a's placements stay counted.
	lister.freeze(&vsched.PlainVPod{Key: srcKey("a"), VReplicas: 6, ResourceVersion: "1"}, c.store.get("b"))
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	if u := used(s); u[0] != 10 {
		t.Fatalf("used = %v after a list older than what was seen", u)
	}
}

func TestRestartLoadsCommittedPlacements(t *testing.T) {
	// Regression: "a full pod received 5 more vreplicas after a restart
	// (15 of 10)". The new scheduler decided before reading the sources'
	// status, so adapter-0 looked empty.
	c, restart := filledThenStopped(t)
	s2 := restart()
	c.store.create("b", 5)
	wantPlacements(t, scheduleOK(t, s2, c, "b"), 1, 5)
	for ord, n := range used(s2) {
		if n > 10 {
			t.Fatalf("adapter-%d holds %d of 10", ord, n)
		}
	}
}

func TestRestartWithFailingListerIsNotReady(t *testing.T) {
	c, restart := filledThenStopped(t)
	c.store.FailList(errListerDown)
	s2 := restart()
	scheduleNotReady(t, c, s2, "the state could load")

	c.store.FailList(nil)
	wantPlacements(t, scheduleOK(t, s2, c, "b"), 1, 5)
}

// scheduleNotReady creates b (5) and schedules it on s, which cannot load
// the sources yet (before what): it must refuse with vsched.ErrNotReady, and
// place, count and reserve nothing.
func scheduleNotReady(t *testing.T, c *kubeCluster, s *Scheduler, before string) {
	t.Helper()
	c.store.create("b", 5)
	ps, err := s.Schedule(quietCtx(), c.store.get("b"))
	if !errors.Is(err, vsched.ErrNotReady) || errors.Is(err, vsched.ErrNotEnoughReplicas) || ps != nil {
		t.Fatalf("Schedule before %s = [%s], %v; want nil, ErrNotReady", before, short(ps), err)
	}
	if u := used(s); len(u) != 0 {
		t.Fatalf("used = %v before %s, want nothing", u, before)
	}
	if _, ok := reservation(s, "b"); ok {
		t.Fatalf("a reservation for b before %s", before)
	}
}

func TestResyncWithFailingListerKeepsReservations(t *testing.T) {
	// Regression: "a transient error reading state dropped a source's
	// reservation, so the next call re-placed the source from scratch".
	c, s := reservationCluster(t)
	before, _ := reservation(s, "a")

	c.store.FailList(errListerDown)
	if err := s.Resync(quietCtx()); !errors.Is(err, errListerDown) {
		t.Fatalf("Resync = %v, want the lister's error", err)
	}
	after, ok := reservation(s, "a")
	if !ok || short(after.Placements) != short(before.Placements) {
		t.Fatalf("reservation after a failed resync = %+v (ok %v), want %+v", after, ok, before)
	}

	// The next call (status still unwritten) keeps a where it was, and a
	// new source still sees a's capacity taken.
	ps, err := s.Schedule(quietCtx(), c.store.get("a"))
	if err != nil {
		t.Fatal(err)
	}
	wantPlacements(t, ps, 0, 6)
	c.store.create("c", 3)
	wantPlacements(t, scheduleOK(t, s, c, "c"), 1, 3)
	c.store.FailList(nil)
}

func TestMalformedPodNamesInPlacements(t *testing.T) {
	c := zones3(t, 6)
	s := c.start()
	c.store.put(&vsched.PlainVPod{Key: srcKey("a"), VReplicas: 6, Placements: []vsched.Placement{
		{PodName: "adapter-x", VReplicas: 2},  // no ordinal
		{PodName: "adapter-4", VReplicas: 1},  // fine
		{PodName: "other-3", VReplicas: 1},    // another StatefulSet
		{PodName: "adapter-01", VReplicas: 1}, // not canonical: not adapter-1
		{PodName: "", VReplicas: 1},           // empty
		{PodName: "adapter-0", VReplicas: 0},  // zero counts are ignored
	}})
	ps, err := s.Schedule(quietCtx(), c.store.get("a"))
	if err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	counts(t, ps) // fails on malformed or duplicated entries
	// adapter-4's vreplica is kept (zone-b): 5 more go to zones a and c
	// first, then to the pods in use. Had it been dropped, six fresh ones
	// would have gone 2/2/2 to adapter-0, 1 and 2.
	wantPlacements(t, ps, 0, 2, 2, 2, 4, 2)
	if u := used(s); sum(u) != 6 {
		t.Fatalf("used = %v: the dropped entries must not count anywhere", u)
	}
	// Written back and listed, it commits cleanly.
	c.store.writeStatus("a", ps)
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	if _, ok := reservation(s, "a"); ok {
		t.Fatal("clean placements written back did not commit")
	}
	if u := used(s); sum(u) != 6 {
		t.Fatalf("used = %v after commit", u)
	}
}

func sum(m map[int32]int32) int32 {
	var n int32
	for _, v := range m {
		n += v
	}
	return n
}

func TestScheduleDoesNotLogAtInfo(t *testing.T) {
	// Regression: "a log line dumped the whole state per call at the
	// default level". Info is the default level.
	core, logs := observer.New(zapcore.DebugLevel)
	ctx := logging.WithLogger(context.Background(), zap.New(core).Sugar())
	c := zones3(t, 6)
	s, err := c.tryStart(ctx, func(cfg *Config) { cfg.Capacity = 3 })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		c.store.create(fmt.Sprintf("src-%02d", i), int32(1+i%5))
	}
	schedule := func(name string) {
		ps, err := s.Schedule(ctx, c.store.get(name))
		if err != nil && !errors.Is(err, vsched.ErrNotEnoughReplicas) {
			t.Fatal(err)
		}
		c.store.writeStatus(name, ps)
	}
	logs.TakeAll() // New's own line

	// The first call loads the state: one short Info line is fine.
	schedule("src-00")
	for _, e := range logs.TakeAll() {
		checkShort(t, e)
	}

	// Steady state: placing, pending (capacity 18 < 36 wanted), scaling
	// down, a draining pod. Nothing at Info or above, and what is logged
	// at Debug is about the one source, not the whole state.
	for i := 1; i < 12; i++ {
		schedule(fmt.Sprintf("src-%02d", i))
	}
	c.store.scale("src-03", 1)
	schedule("src-03")
	c.drain(0, true)
	for i := 0; i < 12; i++ {
		schedule(fmt.Sprintf("src-%02d", i))
	}
	for _, e := range logs.AllUntimed() {
		if e.Level >= zapcore.InfoLevel {
			t.Errorf("Schedule logged at %v: %q %v", e.Level, e.Message, e.ContextMap())
		}
		checkShort(t, e)
	}
}

// checkShort fails for a log entry that lists pods or runs long: per-call
// lines must stay small whatever the cluster's size.
func checkShort(t *testing.T, e observer.LoggedEntry) {
	t.Helper()
	text := fmt.Sprintf("%s %v", e.Message, e.ContextMap())
	if len(text) > 400 || strings.Count(text, testSet+"-") > 1 {
		t.Errorf("log line too long or listing pods (%d bytes): %s", len(text), text)
	}
}

func TestCapacityFreedByUnwrittenDecision(t *testing.T) {
	// Regression, found by the randomized test: while a reservation was
	// outstanding, only the reservation counted against capacity, not the
	// status it will replace. A decision that takes vreplicas off a pod
	// (a scale-down, a move) freed that capacity before the source's
	// adapter stopped using it, and another source was given it at once:
	// the statuses then held 20 on a pod of 10 until the first write
	// landed, and for good if it never did. Now a pod counts the larger of
	// the committed and the reserved placements until the write shows up.

	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := zones3(t, 3)
	s := c.start(func(cfg *Config) { cfg.Profiles = lowestOrdinal(t); cfg.Clock = clk; cfg.ReservationTTL = time.Minute })
	c.store.create("a", 10)
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 10)

	// a scales to 0; the answer is not written yet, so a's adapter still
	// runs 10 vreplicas on adapter-0.
	c.store.scale("a", 0)
	if ps, err := s.Schedule(quietCtx(), c.store.get("a")); err != nil || len(ps) != 0 {
		t.Fatalf("a -> %v, %v", ps, err)
	}
	c.store.create("b", 10)
	wantPlacements(t, scheduleOK(t, s, c, "b"), 1, 10)

	// The write never lands.
	clk.SetTime(clk.Now().Add(2 * time.Minute))
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	for ord, n := range used(s) {
		if n > 10 {
			t.Fatalf("adapter-%d holds %d of 10", ord, n)
		}
	}
}

func TestNotReadyUntilInformersSync(t *testing.T) {
	// A scheduler whose informers have not synced must not decide, even
	// after a Resync loaded every source: it would see only part of the
	// pods. Resync used to mark the state loaded regardless.
	c := zones3(t, 3)
	factory := informers.NewSharedInformerFactoryWithOptions(c.Client(), 0, informers.WithNamespace(testNS))
	s, err := New(quietCtx(), Config{
		Namespace: testNS, Name: testSet, Capacity: 10,
		Lister: c.store.List, ListerSynced: c.store.HasSynced, Informers: InformersFromFactory(factory),
		Profiles: profilesFromData(t, nil, nil), AlwaysLeader: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	c.store.create("a", 2)
	if err := s.Resync(quietCtx()); err != nil {
		t.Fatal(err)
	}
	ps, err := s.Schedule(quietCtx(), c.store.get("a"))
	if !errors.Is(err, vsched.ErrNotReady) || ps != nil {
		t.Fatalf("Schedule before the informers synced = %v, %v; want nil, ErrNotReady", ps, err)
	}
}
