package controller

import (
	"slices"
	"testing"
	"time"

	apierrs "k8s.io/apimachinery/pkg/api/errors"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/memcluster"
)

// The pending-status deferral (--bind-wait, deferPendingWrite) under the
// world as it is: the pods the autoscaler asks for reach the scheduler late,
// status writes fail or conflict, the wait runs out, leadership changes and
// sources are deleted while their pending write waits. Each deferEnv waits
// 10s of the cluster's clock.

// bindWait is deferEnv's.
const bindWait = 10 * time.Second

// pendingSource creates a source of 5 vreplicas on a StatefulSet with no
// pods and reconciles it once: its pending write is deferred.
func pendingSource(t *testing.T, e *env) types.NamespacedName {
	t.Helper()
	key := e.create(v1alpha1.New(srcNS, "src", 5)).GetKey()
	wantRequeue(t, e, key)
	return key
}

// landed returns the status writes of key that the server stored.
func landed(e *env, key types.NamespacedName) []statusWrite {
	var out []statusWrite
	for _, w := range e.api.statusWrites(key) {
		if w.NewRV != "" {
			out = append(out, w)
		}
	}
	return out
}

// wantPendingWritten checks that the stored status says NotEnoughCapacity
// with nothing placed.
func wantPendingWritten(t *testing.T, e *env, key types.NamespacedName) {
	t.Helper()
	got := e.api.get(t, key)
	if c := got.Condition(v1alpha1.ConditionScheduled); c == nil || c.Reason != v1alpha1.ReasonNotEnoughCapacity || got.Status.PlacedVReplicas != 0 {
		t.Errorf("stored %s, want the NotEnoughCapacity condition and nothing placed", describe(got))
	}
}

// podSeen lets the held pod events through: the scheduler requeues the
// source, whose reconcile must then write.
func podSeen(t *testing.T, e *env, key types.NamespacedName) {
	t.Helper()
	e.cluster.Release(memcluster.KindPod)
	if err := e.cluster.Sync(e.ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(e.requeuedKeys(), key) {
		t.Fatalf("the scheduler did not requeue %v when room appeared (requeued %v)", key, e.requeuedKeys())
	}
	if err := e.reconcile(key); err != nil {
		t.Fatalf("Reconcile() once the pod is seen = %v", err)
	}
}

// podsHeld is a deferEnv with a pending source, after the StatefulSet got
// a pod the scheduler's informer holds back.
func podsHeld(t *testing.T) (*env, types.NamespacedName) {
	t.Helper()
	e := deferEnv(t, 0, 10)
	key := pendingSource(t, e)
	e.cluster.Hold(memcluster.KindPod)
	if err := e.cluster.ScaleTo(1); err != nil {
		t.Fatal(err)
	}
	return e, key
}

// TestDeferralPodsSeenLate: the autoscaler's pods exist, but the
// scheduler's pod informer delivers them late.
func TestDeferralPodsSeenLate(t *testing.T) {
	t.Run("within bindWait: one write, the placements", func(t *testing.T) {
		e, key := podsHeld(t)
		e.cluster.Clock().Step(bindWait / 2)
		wantRequeue(t, e, key) // no pod seen yet
		podSeen(t, e, key)
		w := landed(e, key)
		if got := e.api.get(t, key); len(w) != 1 || !allPlaced(got) {
			t.Errorf("%d status writes, stored %s; want one, every vreplica placed", len(w), describe(got))
		}
	})
	t.Run("after bindWait: the pending status once, then the placements", func(t *testing.T) {
		e, key := podsHeld(t)
		e.cluster.Clock().Step(bindWait)
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() after bindWait = %v", err)
		}
		// Again before the lister shows that write, then after.
		if err := e.reconcile(key); err != nil && !isRequeue(err) {
			t.Fatalf("Reconcile() from the lagging lister = %v", err)
		}
		e.refresh(key)
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() from the lister showing the write = %v", err)
		}
		if n := len(landed(e, key)); n != 1 {
			t.Fatalf("%d status writes after bindWait, want the pending status once", n)
		}
		wantPendingWritten(t, e, key)
		podSeen(t, e, key)
		if got, n := e.api.get(t, key), len(landed(e, key)); n != 2 || !allPlaced(got) {
			t.Errorf("%d status writes, stored %s; want the placements second", n, describe(got))
		}
	})
}

// TestDeferralWriteFails: the pending write due once bindWait ran out fails
// or conflicts; its retry writes at once, without a new wait.
func TestDeferralWriteFails(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inject func(e *env)
	}{{
		name: "the server is unavailable",
		inject: func(e *env) {
			failed := false
			e.api.client.PrependReactor("update", v1alpha1.Resource, func(k8stesting.Action) (bool, kruntime.Object, error) {
				if failed {
					return false, nil, nil
				}
				failed = true
				return true, nil, apierrs.NewServiceUnavailable("etcd leader changed")
			})
		},
	}, {
		name: "another writer got there first",
		inject: func(e *env) {
			e.api.setInterfere(func(n int, _ *v1alpha1.SampleSource) func(*v1alpha1.SampleSource) {
				if n > 0 {
					return nil
				}
				return func(s *v1alpha1.SampleSource) { s.Labels = map[string]string{"team": "a"} }
			})
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := deferEnv(t, 0, 10)
			key := pendingSource(t, e)
			e.cluster.Clock().Step(bindWait)
			tc.inject(e)
			if err := e.reconcile(key); err == nil || isRequeue(err) {
				t.Fatalf("Reconcile() with the write failing = %v, want its error", err)
			}
			e.refresh(key)
			if err := e.reconcile(key); err != nil {
				t.Fatalf("Reconcile() retried = %v, want the pending status written at once", err)
			}
			wantPendingWritten(t, e, key)
		})
	}
}

// TestDeferralLeaderChange: leadership changes while a pending write waits.
func TestDeferralLeaderChange(t *testing.T) {
	owner := testBucket{"owner", true}
	promote := func(t *testing.T, e *env) {
		t.Helper()
		if err := e.r.Promote(owner, func(reconciler.Bucket, types.NamespacedName) {}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("demoted: the requeue writes nothing", func(t *testing.T) {
		e := deferEnv(t, 0, 10, envOpts{notLeader: true})
		promote(t, e)
		key := pendingSource(t, e)
		e.r.Demote(owner)
		e.cluster.Clock().Step(bindWait)
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() on a follower = %v", err)
		}
		if n := len(e.api.statusWrites(key)); n != 0 {
			t.Errorf("a follower sent %d status writes", n)
		}
	})
	t.Run("leading again: a new term waits a bindWait of its own", func(t *testing.T) {
		e := deferEnv(t, 0, 10, envOpts{notLeader: true})
		promote(t, e)
		key := pendingSource(t, e)
		e.r.Demote(owner)
		e.cluster.Clock().Step(bindWait * 3 / 2)
		promote(t, e)
		wantRequeue(t, e, key) // the new term's autoscaler has pods to ask for too
		e.cluster.Clock().Step(bindWait)
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() after the new term's bindWait = %v", err)
		}
		wantPendingWritten(t, e, key)
	})
}

// TestDeferralSourceDeleted: the source goes while its pending write waits.
func TestDeferralSourceDeleted(t *testing.T) {
	t.Run("deleted: nothing written, its window dropped", func(t *testing.T) {
		e := deferEnv(t, 0, 10)
		key := pendingSource(t, e)
		e.api.delete(t, key)
		e.refresh(key)
		e.cluster.Clock().Step(bindWait)
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() of a deleted source = %v", err)
		}
		if n := len(e.api.statusWrites(key)); n != 0 {
			t.Errorf("%d status writes to a deleted source", n)
		}
		e.r.pendingMu.Lock()
		defer e.r.pendingMu.Unlock()
		if len(e.r.pendingSince) != 0 {
			t.Errorf("pending windows %v left", e.r.pendingSince)
		}
	})
	t.Run("created again: the new source waits a bindWait of its own", func(t *testing.T) {
		e := deferEnv(t, 0, 10)
		key := pendingSource(t, e)
		e.cluster.Clock().Step(bindWait * 3 / 4)
		// Deleted and created again under the same name before the
		// deleted one's requeue: the lister shows the new object only.
		e.api.delete(t, key)
		again := v1alpha1.New(srcNS, key.Name, 5)
		e.api.create(t, again)
		e.api.mu.Lock()
		_, err := e.api.mutateLocked(key, func(s *v1alpha1.SampleSource) { s.UID = "uid-src-again" })
		e.api.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		e.refresh(key)
		wantRequeue(t, e, key)
		e.cluster.Clock().Step(bindWait / 2)
		wantRequeue(t, e, key)
		if n := len(e.api.statusWrites(key)); n != 0 {
			t.Errorf("%d status writes to a source created %v ago, want none within bindWait", n, bindWait*3/4)
		}
	})
}
