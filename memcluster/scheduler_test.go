package memcluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	logtesting "knative.dev/pkg/logging/testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// TestWithScheduler runs the real scheduler on a memcluster the way its
// consumers do: informers from InformerFactory, the Sources lister, the fake
// clock, and Sync between cluster changes and decisions.
func TestWithScheduler(t *testing.T) {
	const ttl = time.Minute
	c := newCluster(t, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 3, Capacity: 4})
	sources := memcluster.NewSources()
	ctx, cancel := context.WithCancel(logtesting.TestContextWithLogger(t))
	t.Cleanup(func() { cancel(); c.Shutdown() })
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sched, err := statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: c.Capacity(),
		Lister: sources.List, ListerSynced: sources.HasSynced, Informers: statefulset.InformersFromFactory(c.InformerFactory()), Profiles: profiles,
		AlwaysLeader: true, Clock: c.Clock(), ReservationTTL: ttl,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	onPod := func(ps []vsched.Placement, ord int32) int32 {
		if pl := vsched.PlacementForPod(ps, c.PodName(ord)); pl != nil {
			return pl.VReplicas
		}
		return 0
	}

	if _, err := sources.Create(key("one"), 6); err != nil {
		t.Fatal(err)
	}
	ps, err := sources.Reconcile(ctx, sched, key("one"))
	if err != nil || vsched.TotalVReplicas(ps) != 6 {
		t.Fatalf("Reconcile(one) = %v, %v; want 6 placed", ps, err)
	}

	// Zone a holds pod 0: once the scheduler has seen it fail, nothing new
	// goes there.
	if err := c.FailZone("a"); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sources.Create(key("two"), 4); err != nil {
		t.Fatal(err)
	}
	ps, err = sources.Reconcile(ctx, sched, key("two"))
	if !errors.Is(err, vsched.ErrNotEnoughReplicas) && err != nil {
		t.Fatal(err)
	}
	if onPod(ps, 0) != 0 {
		t.Errorf("placed on a pod in the failed zone: %v", ps)
	}

	// Pending vreplicas are committed partially; scaling up makes room.
	if _, err := sources.Update(key("two"), 10); err != nil {
		t.Fatal(err)
	}
	_, err = sources.Reconcile(ctx, sched, key("two"))
	pending := vsched.PendingCount(err)
	if pending == 0 {
		t.Fatalf("Reconcile(two) with 10 vreplicas: %v; want some pending", err)
	}
	if err := c.ScaleTo(6); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ps, err = sources.Reconcile(ctx, sched, key("two"))
	if err != nil || vsched.TotalVReplicas(ps) != 10 || onPod(ps, 0) != 0 {
		t.Fatalf("after ScaleTo(6): Reconcile(two) = %v, %v; want 10 placed, none on pod 0", ps, err)
	}
	st := sched.Snapshot()
	for ord := range int32(6) {
		if st.Free(ord) < 0 {
			t.Errorf("pod %d over capacity: Free %d", ord, st.Free(ord))
		}
	}

	// A decision whose status write never happens holds capacity until its
	// reservation expires.
	if _, err := sources.Create(key("lost"), 2); err != nil {
		t.Fatal(err)
	}
	lost, _ := sources.Get(key("lost"))
	if _, err := sched.Schedule(ctx, lost); err != nil {
		t.Fatal(err)
	}
	var before, after int64
	before = sched.Snapshot().TotalUsed()
	c.Clock().Step(ttl)
	if err := sched.Resync(ctx); err != nil {
		t.Fatal(err)
	}
	after = sched.Snapshot().TotalUsed()
	if before-after != 2 {
		t.Errorf("TotalUsed %d before expiry, %d after; want 2 freed", before, after)
	}

	// A stale status write fails as it would against the API server.
	stale, _ := sources.Get(key("one"))
	if _, err := sources.Update(key("one"), 7); err != nil {
		t.Fatal(err)
	}
	if err := sources.CommitPlacements(key("one"), stale.GetResourceVersion(), nil); !apierrors.IsConflict(err) {
		t.Errorf("stale commit: %v; want a conflict", err)
	}
}
