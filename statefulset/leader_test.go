package statefulset

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"knative.dev/pkg/hash"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched"
)

func follower(cfg *Config) { cfg.AlwaysLeader = false }

func wantNotLeader(t *testing.T, s *Scheduler, c *kubeCluster, name string) {
	t.Helper()
	ps, err := s.Schedule(quietCtx(), c.store.get(name))
	if !errors.Is(err, vsched.ErrNotLeader) || ps != nil {
		t.Fatalf("Schedule on a follower = %v, %v; want nil, ErrNotLeader", ps, err)
	}
	if s.IsLeader() {
		t.Fatal("IsLeader() = true on a follower")
	}
}

func TestFollowerReturnsErrNotLeader(t *testing.T) {
	c := zones3(t, 3)
	s := c.start(follower)
	c.store.create("a", 2)
	wantNotLeader(t, s, c, "a")
	if _, ok := reservation(s, "a"); ok {
		t.Fatal("a follower reserved capacity")
	}
}

func TestAlwaysLeader(t *testing.T) {
	c := zones3(t, 3)
	s := c.start() // AlwaysLeader
	if !s.IsLeader() {
		t.Fatal("an AlwaysLeader scheduler does not lead")
	}
	// Leader election machinery may still demote it; it keeps leading.
	s.Demote(reconciler.UniversalBucket())
	_ = s.Promote(reconciler.UniversalBucket(), nil)
	s.Demote(reconciler.UniversalBucket())
	c.store.create("a", 2)
	scheduleOK(t, s, c, "a")
}

// buckets returns a bucket set of n buckets and, for the StatefulSet's key,
// its owner and the other buckets.
func buckets(t *testing.T, n int) (*hash.BucketSet, reconciler.Bucket, []reconciler.Bucket) {
	t.Helper()
	names := sets.New[string]()
	for i := 0; i < n; i++ {
		names.Insert(fmt.Sprintf("vsched.adapter.%02d-of-%02d", i, n))
	}
	bs := hash.NewBucketSet(names)
	key := types.NamespacedName{Namespace: testNS, Name: testSet}
	var owner reconciler.Bucket
	var others []reconciler.Bucket
	for _, b := range bs.Buckets() {
		if b.Has(key) {
			owner = b
		} else {
			others = append(others, b)
		}
	}
	if owner == nil || len(others) != n-1 {
		t.Fatalf("bucket set: owner %v, %d others", owner, len(others))
	}
	return bs, owner, others
}

func TestLeadsOnlyWhileHoldingTheOwningBucket(t *testing.T) {
	c := zones3(t, 3)
	profiles := lowestOrdinal(t)
	s := c.start(follower, func(cfg *Config) { cfg.Profiles = profiles })
	_, owner, others := buckets(t, 4)
	c.store.create("a", 4)

	// Buckets that do not own the StatefulSet make no difference.
	for _, b := range others {
		if err := s.Promote(b, nil); err != nil {
			t.Fatal(err)
		}
	}
	wantNotLeader(t, s, c, "a")

	if err := s.Promote(owner, nil); err != nil {
		t.Fatal(err)
	}
	if !s.IsLeader() {
		t.Fatal("not leading while holding the owning bucket")
	}
	wantPlacements(t, scheduleOK(t, s, c, "a"), 0, 4)

	// Losing another bucket does not demote it.
	s.Demote(others[0])
	if !s.IsLeader() {
		t.Fatal("demoting a bucket that does not own the StatefulSet demoted the scheduler")
	}
	c.store.create("b", 4)
	wantPlacements(t, scheduleOK(t, s, c, "b"), 0, 4)
	if u := used(s); u[0] != 8 {
		t.Fatalf("used = %v, want a's and b's 8 on adapter-0", u)
	}

	// Losing the owner does.
	s.Demote(owner)
	wantNotLeader(t, s, c, "a")

	// While it follows, another replica leads and decides: c fills
	// adapter-1, and the status shows it.
	c.store.put(&vsched.PlainVPod{Key: srcKey("c"), VReplicas: 10, Placements: placements(1, 10)})

	// Promoted again, it reloads every source's status before deciding:
	// d must not land on adapter-1. adapter-0 has room for 2 (a and b
	// hold 8), adapter-2 takes the rest.
	if err := s.Promote(owner, nil); err != nil {
		t.Fatal(err)
	}
	c.store.create("d", 4)
	wantPlacements(t, scheduleOK(t, s, c, "d"), 0, 2, 2, 2)
}

func TestDemoteAfterOwnershipMoved(t *testing.T) {
	// The bucket set changed after the promotion, so the bucket that
	// owned the StatefulSet no longer Has it. Demoting that bucket must
	// still end the leadership it granted: another replica may now own
	// the StatefulSet through a different bucket.
	c := zones3(t, 3)
	s := c.start(follower)
	bs, owner, _ := buckets(t, 2)
	if err := s.Promote(owner, nil); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: testNS, Name: testSet}
	names := sets.New(bs.BucketList()...)
	for i := 0; owner.Has(key); i++ {
		if i > 100 {
			t.Fatal("could not move ownership away")
		}
		names.Insert(fmt.Sprintf("vsched.adapter.extra-%d", i))
		bs.Update(names)
	}
	s.Demote(owner)
	c.store.create("a", 1)
	wantNotLeader(t, s, c, "a")
}

// namedBucket owns every key, under its own name.
type namedBucket string

func (b namedBucket) Name() string                  { return string(b) }
func (b namedBucket) Has(types.NamespacedName) bool { return true }

func TestConcurrentPromoteAndDemoteOfDifferentBuckets(t *testing.T) {
	// Losing one bucket while gaining another must leave the scheduler
	// leading: it holds the new one. The leader flag used to be updated
	// outside the lock guarding the bucket set, so the Demote could clear
	// it after the Promote had set it.
	c := zones3(t, 1)
	s := c.start(follower)
	x, y := namedBucket("x"), namedBucket("y")
	for i := 0; i < 2000; i++ {
		if err := s.Promote(x, nil); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); s.Demote(x) }()
		go func() { defer wg.Done(); _ = s.Promote(y, nil) }()
		wg.Wait()
		if !s.IsLeader() {
			t.Fatalf("iteration %d: not leading while holding bucket y", i)
		}
		s.Demote(y)
		if s.IsLeader() {
			t.Fatalf("iteration %d: leading without any bucket", i)
		}
	}
}
