package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	kcontroller "knative.dev/pkg/controller"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
)

// pl is a placement as the scheduler writes it on a memcluster built with
// zones a, b and c (pod i on the node of the (i%3)-th zone).
func pl(ord int32, n int32) vsched.Placement {
	zone := []string{"zone-a", "zone-b", "zone-c"}[ord%3]
	return vsched.Placement{PodName: vsched.PodName("adapter", ord), ZoneName: zone, NodeName: "node-" + zone + "-0", VReplicas: n}
}

var statusOpts = []cmp.Option{ignoreTransitionTime, cmpopts.EquateEmpty()}

// TestReconcileWritesStatus: one reconcile writes the scheduler's decision,
// the vreplicas placed and the Scheduled condition in one UpdateStatus of
// the object as read, and a reconcile of the written object writes nothing.
func TestReconcileWritesStatus(t *testing.T) {
	tests := []struct {
		name       string
		replicas   int32
		capacity   int32
		vreplicas  int32
		placements []vsched.Placement // the status before
		want       v1alpha1.SampleSourceStatus
	}{{
		name: "enough capacity places every vreplica, spread over the zones", replicas: 3, capacity: 10, vreplicas: 7,
		want: v1alpha1.SampleSourceStatus{
			ObservedGeneration: 1, PlacedVReplicas: 7,
			Placements: []vsched.Placement{pl(0, 3), pl(1, 2), pl(2, 2)},
			Conditions: []metav1.Condition{scheduledCond(metav1.ConditionTrue, v1alpha1.ReasonAllPlaced, "7 vreplica(s) placed on 3 pod(s)", 1)},
		},
	}, {
		name: "capacity short stores the partial placements and says how many are pending", replicas: 3, capacity: 4, vreplicas: 15,
		want: v1alpha1.SampleSourceStatus{
			ObservedGeneration: 1, PlacedVReplicas: 12,
			Placements: []vsched.Placement{pl(0, 4), pl(1, 4), pl(2, 4)},
			Conditions: []metav1.Condition{scheduledCond(metav1.ConditionFalse, v1alpha1.ReasonNotEnoughCapacity,
				`3 vreplica(s) pending: 3 candidate pod(s): PodFitsResources rejected 3 pod(s) (e.g. "pod adapter-0 is full (4/4 vreplicas)")`, 1)},
		},
	}, {
		name: "no pod at all leaves every vreplica pending", replicas: 0, capacity: 10, vreplicas: 5,
		want: v1alpha1.SampleSourceStatus{
			ObservedGeneration: 1,
			Conditions: []metav1.Condition{scheduledCond(metav1.ConditionFalse, v1alpha1.ReasonNotEnoughCapacity,
				"5 vreplica(s) pending: no candidate pods (none exist, or all are unbound, draining or on unschedulable nodes)", 1)},
		},
	}, {
		name: "zero vreplicas is scheduled", replicas: 3, capacity: 10, vreplicas: 0,
		want: v1alpha1.SampleSourceStatus{
			ObservedGeneration: 1,
			Conditions:         []metav1.Condition{scheduledCond(metav1.ConditionTrue, v1alpha1.ReasonAllPlaced, "0 vreplica(s) placed on 0 pod(s)", 1)},
		},
	}, {
		name: "scale-down removes vreplicas, the most loaded first", replicas: 3, capacity: 10, vreplicas: 4,
		placements: []vsched.Placement{pl(0, 3), pl(1, 2), pl(2, 2)},
		want: v1alpha1.SampleSourceStatus{
			ObservedGeneration: 1, PlacedVReplicas: 4,
			Placements: []vsched.Placement{pl(0, 2), pl(1, 1), pl(2, 1)},
			Conditions: []metav1.Condition{scheduledCond(metav1.ConditionTrue, v1alpha1.ReasonAllPlaced, "4 vreplica(s) placed on 3 pod(s)", 1)},
		},
	}, {
		name: "scale-up keeps the running vreplicas where they are", replicas: 3, capacity: 10, vreplicas: 4,
		placements: []vsched.Placement{pl(2, 1)},
		want: v1alpha1.SampleSourceStatus{
			ObservedGeneration: 1, PlacedVReplicas: 4,
			Placements: []vsched.Placement{pl(0, 2), pl(1, 1), pl(2, 1)},
			Conditions: []metav1.Condition{scheduledCond(metav1.ConditionTrue, v1alpha1.ReasonAllPlaced, "4 vreplica(s) placed on 3 pod(s)", 1)},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOpts{replicas: tc.replicas, capacity: tc.capacity})
			in := v1alpha1.New(srcNS, "src", tc.vreplicas)
			in.Status.Placements = tc.placements
			in.Status.PlacedVReplicas = vsched.TotalVReplicas(tc.placements)
			read := e.create(in)

			if err := e.reconcile(read.GetKey()); err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			got := e.api.get(t, read.GetKey())
			if diff := cmp.Diff(tc.want, got.Status, statusOpts...); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if c := got.Condition(v1alpha1.ConditionScheduled); c == nil || c.LastTransitionTime.IsZero() {
				t.Errorf("Scheduled condition %v has no lastTransitionTime", c)
			}
			checkPlacementsValid(t, got)
			wantWrites := []statusWrite{{Key: read.GetKey(), SentRV: read.ResourceVersion, Placements: tc.want.Placements, NewRV: got.ResourceVersion}}
			if diff := cmp.Diff(wantWrites, e.api.statusWrites(read.GetKey()), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("status writes (-want +got):\n%s", diff)
			}
			if n := e.api.updateActions(); n != 1 {
				t.Errorf("%d update requests, want the one UpdateStatus", n)
			}
			// The written decision is what the scheduler charges: the
			// write was passed to Observe.
			if diff := diffUsed(e, got); diff != "" {
				t.Errorf("scheduler's usage differs from the written status (-status +scheduler):\n%s", diff)
			}

			// The informer delivers the write; reconciling it again
			// changes nothing and writes nothing.
			e.refresh(read.GetKey())
			if err := e.reconcile(read.GetKey()); err != nil {
				t.Fatalf("second Reconcile() = %v", err)
			}
			if n := len(e.api.statusWrites(read.GetKey())); n != 1 {
				t.Errorf("second reconcile wrote again: %d status writes, want 1", n)
			}
		})
	}
}

// TestReconcileStaleWrite: the status write carries the resourceVersion the
// reconcile read. When the object changed in between, the write fails with
// a conflict and lands nothing; the error is retryable, and the retry,
// from a fresh read, writes a decision based on the object as it is now.
// No vreplica is lost or counted twice, in the status or in the
// scheduler's accounting.
func TestReconcileStaleWrite(t *testing.T) {
	tests := []struct {
		name       string
		capacity   int32
		vreplicas  int32
		placements []vsched.Placement // the status before
		// other is the change another writer makes between the
		// controller's read and its write.
		other func(*v1alpha1.SampleSource)
		// laggingRetries is how many retries still read the old object
		// (the informer has not delivered the change yet).
		laggingRetries int
		// wantAfterConflict is the stored status placements right after
		// the conflict: the other writer's, not the stale decision.
		wantAfterConflict []vsched.Placement
		want              []vsched.Placement
	}{{
		name: "user shrinks spec.vreplicas", capacity: 10, vreplicas: 6,
		other: func(s *v1alpha1.SampleSource) { s.Spec.VReplicas = 3 },
		want:  []vsched.Placement{pl(0, 1), pl(1, 1), pl(2, 1)},
	}, {
		name: "user grows spec.vreplicas", capacity: 10, vreplicas: 3,
		other: func(s *v1alpha1.SampleSource) { s.Spec.VReplicas = 9 },
		want:  []vsched.Placement{pl(0, 3), pl(1, 3), pl(2, 3)},
	}, {
		name: "user shrinks spec.vreplicas of a placed source", capacity: 10, vreplicas: 9,
		placements:        []vsched.Placement{pl(0, 3), pl(1, 3), pl(2, 3)},
		other:             func(s *v1alpha1.SampleSource) { s.Spec.VReplicas = 3 },
		wantAfterConflict: []vsched.Placement{pl(0, 3), pl(1, 3), pl(2, 3)},
		want:              []vsched.Placement{pl(0, 1), pl(1, 1), pl(2, 1)},
	}, {
		// A former leader's write lands late: the status wins over the
		// decision made from the stale read, and the two are not merged.
		name: "another writer placed the vreplicas", capacity: 10, vreplicas: 6,
		other: func(s *v1alpha1.SampleSource) {
			s.Status.Placements = []vsched.Placement{pl(2, 6)}
			s.Status.PlacedVReplicas = 6
		},
		wantAfterConflict: []vsched.Placement{pl(2, 6)},
		want:              []vsched.Placement{pl(2, 6)},
	}, {
		// The stale write would put back the 2 vreplicas another writer
		// moved off adapter-2.
		name: "another writer moved placed vreplicas", capacity: 10, vreplicas: 6,
		placements: []vsched.Placement{pl(0, 2), pl(1, 2), pl(2, 2)},
		other: func(s *v1alpha1.SampleSource) {
			s.Status.Placements = []vsched.Placement{pl(0, 4), pl(1, 2)}
		},
		wantAfterConflict: []vsched.Placement{pl(0, 4), pl(1, 2)},
		want:              []vsched.Placement{pl(0, 4), pl(1, 2)},
	}, {
		name: "a metadata-only change still refuses the stale write", capacity: 10, vreplicas: 7,
		other: func(s *v1alpha1.SampleSource) { s.Labels = map[string]string{"team": "a"} },
		want:  []vsched.Placement{pl(0, 3), pl(1, 2), pl(2, 2)},
	}, {
		name: "retries from a lagging lister conflict until it catches up", capacity: 10, vreplicas: 6,
		other:          func(s *v1alpha1.SampleSource) { s.Spec.VReplicas = 3 },
		laggingRetries: 2,
		want:           []vsched.Placement{pl(0, 1), pl(1, 1), pl(2, 1)},
	}, {
		name: "capacity freed by the stale decision is not lost", capacity: 4, vreplicas: 12,
		other: func(s *v1alpha1.SampleSource) { s.Spec.VReplicas = 11 },
		want:  []vsched.Placement{pl(0, 4), pl(1, 4), pl(2, 3)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOpts{replicas: 3, capacity: tc.capacity})
			in := v1alpha1.New(srcNS, "src", tc.vreplicas)
			in.Status.Placements = tc.placements
			in.Status.PlacedVReplicas = vsched.TotalVReplicas(tc.placements)
			read := e.create(in)
			key := read.GetKey()
			e.api.setInterfere(func(n int, sent *v1alpha1.SampleSource) func(*v1alpha1.SampleSource) {
				if n > 0 {
					return nil
				}
				return tc.other
			})

			// 1. The write decided from the old read conflicts.
			err := e.reconcile(key)
			if !apierrs.IsConflict(err) {
				t.Fatalf("Reconcile() = %v, want a conflict", err)
			}
			if kcontroller.IsPermanentError(err) {
				t.Fatalf("Reconcile() = %v is permanent; a conflict must be retried", err)
			}
			others := e.api.otherWrites()
			if len(others) != 1 {
				t.Fatalf("%d interfering writes, want 1", len(others))
			}
			changed := others[0]
			afterConflict := e.api.get(t, key)
			if afterConflict.ResourceVersion != changed.ResourceVersion {
				t.Fatalf("stored version %s, want the other writer's %s: the stale write landed", afterConflict.ResourceVersion, changed.ResourceVersion)
			}
			if diff := cmp.Diff(changed.Status, afterConflict.Status, statusOpts...); diff != "" {
				t.Errorf("the stale write changed the status (-other writer's +stored):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAfterConflict, afterConflict.Status.Placements, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("placements after the conflict (-want +got):\n%s", diff)
			}

			// 2. Retries while the lister still shows the old object
			// conflict too, and land nothing.
			for i := range tc.laggingRetries {
				if err := e.reconcile(key); !apierrs.IsConflict(err) {
					t.Fatalf("retry %d from the lagging lister = %v, want a conflict", i+1, err)
				}
				if now := e.api.get(t, key); now.ResourceVersion != changed.ResourceVersion {
					t.Fatalf("retry %d from the lagging lister landed: stored %s", i+1, describe(now))
				}
			}

			// 3. Once the informer delivers the change, the retry reads
			// it and its write lands.
			e.refresh(key)
			if err := e.reconcile(key); err != nil {
				t.Fatalf("retry from a fresh read = %v", err)
			}
			got := e.api.get(t, key)
			writes := e.api.statusWrites(key)
			if len(writes) != 2+tc.laggingRetries {
				t.Fatalf("%d status writes, want %d: %+v", len(writes), 2+tc.laggingRetries, writes)
			}
			for i, w := range writes[:len(writes)-1] {
				if w.SentRV != read.ResourceVersion || !w.Conflict {
					t.Errorf("write %d = %+v, want one carrying the read version %s, refused", i, w, read.ResourceVersion)
				}
			}
			if last := writes[len(writes)-1]; last.SentRV != changed.ResourceVersion || last.Conflict || last.NewRV != got.ResourceVersion {
				t.Errorf("last write = %+v, want one carrying the fresh version %s, landed as %s", last, changed.ResourceVersion, got.ResourceVersion)
			}

			// 4. The end state: the current spec, fully placed, once.
			want := v1alpha1.SampleSourceStatus{
				ObservedGeneration: changed.Generation,
				Placements:         tc.want,
				PlacedVReplicas:    changed.Spec.VReplicas,
				Conditions: []metav1.Condition{scheduledCond(metav1.ConditionTrue, v1alpha1.ReasonAllPlaced,
					"", changed.Generation)},
			}
			if diff := cmp.Diff(want, got.Status, append(statusOpts, cmpopts.IgnoreFields(metav1.Condition{}, "Message"))...); diff != "" {
				t.Errorf("final status of %s (-want +got):\n%s", describe(got), diff)
			}
			checkPlacementsValid(t, got)
			if diff := diffUsed(e, got); diff != "" {
				t.Errorf("scheduler's usage differs from the written status (-status +scheduler):\n%s", diff)
			}
			view, _ := e.sched.Source(key)
			committed, reserved := view.Committed, view.Reserved != nil
			if diff := cmp.Diff(got.Status.Placements, committed, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("scheduler's committed placements (-status +committed):\n%s", diff)
			}
			if reserved {
				t.Errorf("a reservation is still outstanding after the write landed")
			}

			// 5. Settled: the next reconcile writes nothing.
			e.refresh(key)
			if err := e.reconcile(key); err != nil {
				t.Fatalf("Reconcile() after settling = %v", err)
			}
			if n := len(e.api.statusWrites(key)); n != len(writes) {
				t.Errorf("reconcile after settling wrote again (%d writes, want %d)", n, len(writes))
			}
		})
	}
}

// TestReconcileLaggingListerAfterOwnWrite: a reconcile that runs again
// before the informer has delivered the controller's own write (the
// scheduler's or the evictor's requeue can land in that window) reads the
// old object, which the scheduler has seen superseded: it refuses it
// (ErrStale), and the reconcile requeues without writing, changing nothing
// in the status or in what the scheduler charges.
func TestReconcileLaggingListerAfterOwnWrite(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, capacity: 4})
	read := e.create(v1alpha1.New(srcNS, "a", 7))
	key := read.GetKey()
	if err := e.reconcile(key); err != nil {
		t.Fatalf("Reconcile() = %v", err)
	}
	written := e.api.get(t, key)

	// The lister still shows the version first read.
	if err := e.reconcile(key); !isRequeue(err) {
		t.Fatalf("Reconcile() from the lagging lister = %v, want a requeue", err)
	}
	if got := e.api.get(t, key); got.ResourceVersion != written.ResourceVersion {
		t.Fatalf("the write from the lagging lister landed: %s", describe(got))
	}
	if w := e.api.statusWrites(key); len(w) != 1 || w[0].SentRV != read.ResourceVersion {
		t.Fatalf("status writes = %+v, want only the first, from version %s", w, read.ResourceVersion)
	}
	if diff := diffUsed(e, written); diff != "" {
		t.Errorf("scheduler's usage (-status +scheduler):\n%s", diff)
	}

	// Another source gets exactly the room that is left.
	b := e.create(v1alpha1.New(srcNS, "b", 12-7)).GetKey()
	if err := e.reconcile(b); err != nil {
		t.Fatalf("Reconcile(b) = %v", err)
	}
	gotB := e.api.get(t, b)
	if !allPlaced(gotB) {
		t.Errorf("b = %s, want the 5 vreplicas left placed", describe(gotB))
	}

	// Caught up: nothing to write.
	e.refresh(key)
	if err := e.reconcile(key); err != nil {
		t.Fatalf("Reconcile() after catching up = %v", err)
	}
	if n := len(e.api.statusWrites(key)); n != 1 {
		t.Errorf("%d status writes of a, want 1", n)
	}
	if diff := diffUsed(e, e.api.get(t, key), gotB); diff != "" {
		t.Errorf("scheduler's usage (-statuses +scheduler):\n%s", diff)
	}
}

// TestReconcileSourceDeletedBeforeWrite: a source deleted between the read
// and the status write fails the write; the retry finds it gone and frees
// what the decision reserved.
func TestReconcileSourceDeletedBeforeWrite(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, capacity: 10})
	key := e.create(v1alpha1.New(srcNS, "a", 7)).GetKey()
	e.api.setInterfere(func(int, *v1alpha1.SampleSource) func(*v1alpha1.SampleSource) {
		if err := e.api.client.Tracker().Delete(gvr, key.Namespace, key.Name); err != nil {
			t.Error(err)
		}
		return nil
	})
	err := e.reconcile(key)
	if !apierrs.IsNotFound(err) || kcontroller.IsPermanentError(err) {
		t.Fatalf("Reconcile() = %v, want a retryable not-found error", err)
	}
	if used := e.used(); len(used) == 0 {
		t.Errorf("the decision was not reserved; want it to count until the source is forgotten")
	}

	e.refresh(key) // the informer delivers the deletion
	if err := e.reconcile(key); err != nil {
		t.Fatalf("retry = %v, want nil", err)
	}
	if used := e.used(); len(used) != 0 {
		t.Errorf("the deleted source still holds %v", used)
	}
}

// TestReconcileMovesOffDrainingPods is the controller's half of the drain
// protocol: once a pod drains (or leaves the StatefulSet), the next
// reconcile moves the source's vreplicas off it, with their replacements,
// in a single status write; what finds no room elsewhere stays.
func TestReconcileMovesOffDrainingPods(t *testing.T) {
	tests := []struct {
		name      string
		capacity  int32
		vreplicas int32
		before    []vsched.Placement // as first placed
		act       func(e *env) error
		want      []vsched.Placement
		events    []string // on the source, after the move
	}{{
		name: "draining pod emptied", capacity: 10, vreplicas: 7,
		before: []vsched.Placement{pl(0, 3), pl(1, 2), pl(2, 2)},
		act:    func(e *env) error { return e.cluster.SetDraining(2, true) },
		want:   []vsched.Placement{pl(0, 4), pl(1, 3)},
		events: []string{"Normal VReplicasMoved moved 2 vreplica(s) off drained pods to other pods"},
	}, {
		name: "draining pod keeps what finds no room", capacity: 4, vreplicas: 9,
		before: []vsched.Placement{pl(0, 3), pl(1, 3), pl(2, 3)},
		act:    func(e *env) error { return e.cluster.SetDraining(2, true) },
		want:   []vsched.Placement{pl(0, 4), pl(1, 4), pl(2, 1)},
		events: []string{"Normal VReplicasMoved moved 2 vreplica(s) off drained pods to other pods"},
	}, {
		name: "lost node", capacity: 10, vreplicas: 7,
		before: []vsched.Placement{pl(0, 3), pl(1, 2), pl(2, 2)},
		act:    func(e *env) error { return e.cluster.AnnotatePod(2, e.cluster.DrainingAnnotation(), "unavailable") },
		want:   []vsched.Placement{pl(0, 4), pl(1, 3)},
		events: []string{"Normal VReplicasMoved moved 2 vreplica(s) off pods whose node was lost to other pods"},
	}, {
		name: "pod removed by a scale-down", capacity: 10, vreplicas: 7,
		before: []vsched.Placement{pl(0, 3), pl(1, 2), pl(2, 2)},
		act:    func(e *env) error { return e.cluster.ScaleTo(2) },
		want:   []vsched.Placement{pl(0, 4), pl(1, 3)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOpts{replicas: 3, capacity: tc.capacity})
			key := e.create(v1alpha1.New(srcNS, "src", tc.vreplicas)).GetKey()
			if err := e.reconcile(key); err != nil {
				t.Fatal(err)
			}
			e.refresh(key)
			placedFirst := e.api.get(t, key)
			if diff := cmp.Diff(tc.before, placedFirst.Status.Placements); diff != "" {
				t.Fatalf("first placement (-want +got):\n%s", diff)
			}

			if err := tc.act(e); err != nil {
				t.Fatal(err)
			}
			if err := e.cluster.Sync(e.ctx); err != nil {
				t.Fatal(err)
			}
			if err := e.reconcile(key); err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			got := e.api.get(t, key)
			writes := e.api.statusWrites(key)
			if len(writes) != 2 || writes[1].Conflict || writes[1].SentRV != placedFirst.ResourceVersion {
				t.Fatalf("status writes = %+v; want the move in one write based on version %s", writes, placedFirst.ResourceVersion)
			}
			if diff := cmp.Diff(tc.want, got.Status.Placements); diff != "" {
				t.Errorf("placements after the move (-want +got):\n%s", diff)
			}
			checkPlacementsValid(t, got)
			if got.Status.PlacedVReplicas != tc.vreplicas {
				t.Errorf("placedVReplicas = %d, want %d: the move lost or added vreplicas", got.Status.PlacedVReplicas, tc.vreplicas)
			}
			if c := got.Condition(v1alpha1.ConditionScheduled); c == nil || c.Status != metav1.ConditionTrue {
				t.Errorf("Scheduled condition = %+v, want True", c)
			}
			if diff := diffUsed(e, got); diff != "" {
				t.Errorf("scheduler's usage differs from the written status (-status +scheduler):\n%s", diff)
			}
			if diff := cmp.Diff(tc.events, e.recorded()); diff != "" {
				t.Errorf("Events (-want +got):\n%s", diff)
			}
		})
	}
}

// testBucket is a leader-election bucket owning every key or none.
type testBucket struct {
	name string
	owns bool
}

func (b testBucket) Name() string                  { return b.name }
func (b testBucket) Has(types.NamespacedName) bool { return b.owns }

// TestReconcileLeadership: only the replica whose scheduler leads the
// StatefulSet writes status; promotion enqueues every source, whatever
// bucket its key is in; demotion stops the writes.
func TestReconcileLeadership(t *testing.T) {
	owner, owner2, other := testBucket{"owner", true}, testBucket{"owner-2", true}, testBucket{"other", false}
	tests := []struct {
		name           string
		promote        []reconciler.Bucket
		demote         []reconciler.Bucket
		wantLeader     bool
		wantEnqueueAll int
	}{
		{name: "never promoted", wantLeader: false},
		{name: "promoted for a bucket not owning the StatefulSet", promote: []reconciler.Bucket{other}},
		{name: "promoted for the StatefulSet's bucket", promote: []reconciler.Bucket{owner}, wantLeader: true, wantEnqueueAll: 1},
		{name: "promoted for everything", promote: []reconciler.Bucket{reconciler.UniversalBucket()}, wantLeader: true, wantEnqueueAll: 1},
		{name: "promoted then demoted", promote: []reconciler.Bucket{owner}, demote: []reconciler.Bucket{owner}, wantEnqueueAll: 1},
		// Every promotion while leading enqueues every source again (the
		// work queue deduplicates).
		{name: "demoted for another bucket stays leader", promote: []reconciler.Bucket{owner, other}, demote: []reconciler.Bucket{other},
			wantLeader: true, wantEnqueueAll: 2},
		{name: "demoted for one of two owning buckets stays leader", promote: []reconciler.Bucket{owner, owner2}, demote: []reconciler.Bucket{owner},
			wantLeader: true, wantEnqueueAll: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOpts{replicas: 3, capacity: 10, notLeader: true})
			key := e.create(v1alpha1.New(srcNS, "src", 4)).GetKey()
			for _, b := range tc.promote {
				if err := e.r.Promote(b, func(reconciler.Bucket, types.NamespacedName) {}); err != nil {
					t.Fatalf("Promote(%s) = %v", b.Name(), err)
				}
			}
			for _, b := range tc.demote {
				e.r.Demote(b)
			}
			if got := e.sched.IsLeader(); got != tc.wantLeader {
				t.Errorf("scheduler leads = %v, want %v", got, tc.wantLeader)
			}
			if got := e.enqueueAllCalls(); got != tc.wantEnqueueAll {
				t.Errorf("every source enqueued %d time(s), want %d", got, tc.wantEnqueueAll)
			}

			if err := e.reconcile(key); err != nil {
				t.Fatalf("Reconcile() = %v", err)
			}
			got := e.api.get(t, key)
			if tc.wantLeader {
				if got.Status.PlacedVReplicas != 4 || len(e.api.statusWrites(key)) != 1 {
					t.Errorf("the leader did not write the decision: %s", describe(got))
				}
				return
			}
			if n := e.api.updateActions(); n != 0 {
				t.Errorf("a follower sent %d update request(s)", n)
			}
			if diff := cmp.Diff(v1alpha1.SampleSourceStatus{}, got.Status, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("a follower changed the status (-want +got):\n%s", diff)
			}
			if _, known := e.sched.Source(key); known {
				t.Errorf("a follower's scheduler recorded a decision for %s", key)
			}
		})
	}
}

// TestReconcileDeletedSourceFreesCapacity: a reconcile that finds the
// source gone forgets it at once, and the sources waiting for room are
// requeued and then placed.
func TestReconcileDeletedSourceFreesCapacity(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, capacity: 4})
	a := e.create(v1alpha1.New(srcNS, "a", 8)).GetKey()
	b := e.create(v1alpha1.New(srcNS, "b", 8)).GetKey()
	for _, k := range []types.NamespacedName{a, b} {
		if err := e.reconcile(k); err != nil {
			t.Fatalf("Reconcile(%s) = %v", k, err)
		}
		e.refresh(k)
	}
	if got := e.api.get(t, b); got.Status.PlacedVReplicas != 4 || got.Condition(v1alpha1.ConditionScheduled).Reason != v1alpha1.ReasonNotEnoughCapacity {
		t.Fatalf("b = %s, want 4 placed and 4 pending", describe(got))
	}
	before := len(e.requeuedKeys())

	e.api.delete(t, a)
	e.refresh(a)
	if err := e.reconcile(a); err != nil {
		t.Fatalf("Reconcile(deleted a) = %v", err)
	}
	if diff := cmp.Diff([]types.NamespacedName{b}, e.requeuedKeys()[before:]); diff != "" {
		t.Errorf("requeued after a was forgotten (-want +got):\n%s", diff)
	}
	if err := e.reconcile(b); err != nil {
		t.Fatalf("Reconcile(b) = %v", err)
	}
	got := e.api.get(t, b)
	if c := got.Condition(v1alpha1.ConditionScheduled); got.Status.PlacedVReplicas != 8 || c.Status != metav1.ConditionTrue {
		t.Errorf("b = %s, want all 8 placed once a's room is free", describe(got))
	}
	checkPlacementsValid(t, got)
	if diff := diffUsed(e, got); diff != "" {
		t.Errorf("scheduler's usage (-statuses +scheduler):\n%s", diff)
	}
	if n := e.api.updateActions(); n != 3 {
		t.Errorf("%d update requests, want 3 (a, b, b again)", n)
	}
}

// TestReconcileWithoutWrite covers the outcomes that write nothing: bad
// keys and objects, sources being deleted, a scheduler not ready, and the
// wait for starting pods.
func TestReconcileWithoutWrite(t *testing.T) {
	isPermanent := func(err error) string {
		if !kcontroller.IsPermanentError(err) {
			return "want a permanent error"
		}
		return ""
	}
	isNil := func(err error) string {
		if err != nil {
			return "want nil"
		}
		return ""
	}
	requeueAfter := func(d time.Duration) func(error) string {
		return func(err error) string {
			if ok, got := kcontroller.IsRequeueKey(err); !ok || got != d {
				return "want a requeue after " + d.String()
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		noStart bool
		setup   func(t *testing.T, e *env) string // returns the key to reconcile
		check   func(error) string
	}{{
		name:  "malformed key",
		setup: func(*testing.T, *env) string { return "a/b/c" },
		check: isPermanent,
	}, {
		name: "object that is not a SampleSource",
		setup: func(t *testing.T, e *env) string {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(v1alpha1.GroupVersionKind)
			u.SetNamespace(srcNS)
			u.SetName("bad")
			if err := unstructured.SetNestedField(u.Object, "seven", "spec", "vreplicas"); err != nil {
				t.Fatal(err)
			}
			if err := e.indexer.Add(u); err != nil {
				t.Fatal(err)
			}
			return srcNS + "/bad"
		},
		check: isPermanent,
	}, {
		name: "source being deleted",
		setup: func(t *testing.T, e *env) string {
			s := v1alpha1.New(srcNS, "src", 3)
			now := metav1.Now()
			s.DeletionTimestamp = &now
			s.Finalizers = []string{"example.com/hold"}
			return e.create(s).GetKey().String()
		},
		check: isNil,
	}, {
		name: "source gone, never seen",
		setup: func(*testing.T, *env) string {
			return srcNS + "/gone"
		},
		check: isNil,
	}, {
		name:    "scheduler not synced yet",
		noStart: true,
		setup: func(t *testing.T, e *env) string {
			return e.create(v1alpha1.New(srcNS, "src", 3)).GetKey().String()
		},
		check: requeueAfter(500 * time.Millisecond),
	}, {
		name: "new vreplicas wait for starting pods",
		setup: func(t *testing.T, e *env) string {
			e.r.podsStarting = func() bool { return true }
			e.r.bindWait = time.Minute
			e.r.now = e.cluster.Clock().Now
			return e.create(v1alpha1.New(srcNS, "src", 3)).GetKey().String()
		},
		check: requeueAfter(250 * time.Millisecond),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOpts{replicas: 3, capacity: 10, noStart: tc.noStart})
			key := tc.setup(t, e)
			err := e.r.Reconcile(e.ctx, key)
			if msg := tc.check(err); msg != "" {
				t.Errorf("Reconcile(%q) = %v, %s", key, err, msg)
			}
			if n := e.api.updateActions(); n != 0 {
				t.Errorf("%d update request(s) sent, want none", n)
			}
			if sources := e.sched.Sources(); len(sources) != 0 {
				t.Errorf("the scheduler holds decisions for %v, want none", sources)
			}
		})
	}
}

// TestReconcileScheduleFailed: a source the scheduler refuses gets a False
// Scheduled condition saying why, keeps its placements (they still run),
// and the error is returned for a retry; the retry does not write the same
// status again.
func TestReconcileScheduleFailed(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, capacity: 10})
	in := v1alpha1.New(srcNS, "src", -1)
	in.Status.Placements = []vsched.Placement{pl(2, 1)}
	in.Status.PlacedVReplicas = 1
	key := e.create(in).GetKey()

	err := e.reconcile(key)
	if err == nil || kcontroller.IsPermanentError(err) || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("Reconcile() = %v, want a retryable error about the negative vreplicas", err)
	}
	got := e.api.get(t, key)
	want := v1alpha1.SampleSourceStatus{
		ObservedGeneration: 1, PlacedVReplicas: 1, Placements: []vsched.Placement{pl(2, 1)},
		Conditions: []metav1.Condition{scheduledCond(metav1.ConditionFalse, v1alpha1.ReasonScheduleFailed, err.Error(), 1)},
	}
	if diff := cmp.Diff(want, got.Status, statusOpts...); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}

	e.refresh(key)
	if err := e.reconcile(key); err == nil {
		t.Errorf("retry = nil, want the error again")
	}
	if n := len(e.api.statusWrites(key)); n != 1 {
		t.Errorf("%d status writes, want 1", n)
	}
}

// TestWaitForStartingPods: a source needing new vreplicas waits while pods
// the StatefulSet pays for are unbound, at most bindWait from the first one
// seen; a source that needs none is never held up.
func TestWaitForStartingPods(t *testing.T) {
	type step struct {
		advance  time.Duration
		starting bool
		want     time.Duration
	}
	const wait = 250 * time.Millisecond
	tests := []struct {
		name     string
		nilCheck bool
		bindWait time.Duration
		steps    []step
	}{
		{name: "no pod check", nilCheck: true, bindWait: time.Second, steps: []step{{starting: true, want: 0}}},
		{name: "negative bind wait never waits", bindWait: -1, steps: []step{{starting: true, want: 0}}},
		{name: "no pod starting", bindWait: time.Second, steps: []step{{starting: false, want: 0}}},
		{name: "waits up to bindWait from the first unbound pod", bindWait: time.Second, steps: []step{
			{starting: true, want: wait},
			{advance: 999 * time.Millisecond, starting: true, want: wait},
			{advance: time.Millisecond, starting: true, want: 0},
			{advance: time.Minute, starting: true, want: 0},
		}},
		{name: "the window restarts once every pod was bound", bindWait: time.Second, steps: []step{
			{starting: true, want: wait},
			{advance: 2 * time.Second, starting: true, want: 0},
			{starting: false, want: 0},
			{starting: true, want: wait},
			{advance: 500 * time.Millisecond, starting: true, want: wait},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			var starting bool
			r := &Reconciler{bindWait: tc.bindWait, now: func() time.Time { return now }}
			if !tc.nilCheck {
				r.podsStarting = func() bool { return starting }
			}
			for i, s := range tc.steps {
				now = now.Add(s.advance)
				starting = s.starting
				if got := r.waitForStartingPods(); got != s.want {
					t.Errorf("step %d: waitForStartingPods() = %v, want %v", i, got, s.want)
				}
			}
		})
	}

	t.Run("a source needing no new vreplicas is not held up", func(t *testing.T) {
		e := newEnv(t, envOpts{replicas: 3, capacity: 10})
		e.r.podsStarting = func() bool { return true }
		e.r.bindWait = time.Minute
		e.r.now = e.cluster.Clock().Now
		in := v1alpha1.New(srcNS, "src", 2)
		in.Status.Placements = []vsched.Placement{pl(0, 2), pl(1, 1)}
		in.Status.PlacedVReplicas = 3
		key := e.create(in).GetKey()
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() = %v", err)
		}
		if got := e.api.get(t, key); got.Status.PlacedVReplicas != 2 {
			t.Errorf("scale-down not written: %s", describe(got))
		}
	})
}

func isRequeue(err error) bool {
	ok, _ := kcontroller.IsRequeueKey(err)
	return ok
}

// TestReconcileDemotedWhileDecidingWritesNothing: issue 10, observation 9.
// A replica demoted between its decision and the status write (a lease lost
// while a worker was deciding) used to write anyway, as a second leader
// beside the new one.
func TestReconcileDemotedWhileDecidingWritesNothing(t *testing.T) {
	owner := testBucket{"owner", true}
	e := newEnv(t, envOpts{replicas: 3, capacity: 10, notLeader: true})
	key := e.create(v1alpha1.New(srcNS, "src", 4)).GetKey()
	if err := e.r.Promote(owner, func(reconciler.Bucket, types.NamespacedName) {}); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	e.duringSchedule = func() {
		e.mu.Lock()
		e.duringSchedule = nil
		e.mu.Unlock()
		e.r.Demote(owner)
	}
	e.mu.Unlock()
	if err := e.reconcile(key); err != nil {
		t.Fatalf("Reconcile() = %v", err)
	}
	if n := e.api.updateActions(); n != 0 {
		t.Errorf("a replica demoted while deciding sent %d update request(s)", n)
	}
}

// TestReconcileDefersPendingWrite: issue 15, the scale run. A source that
// nothing can be placed for yet (no pod, as when the controller starts on
// sources its StatefulSet of 0 pods must grow for) used to have its pending
// status written at once and its placements written again a few seconds
// later, when the autoscaler's pods came: 2 status writes per source. The
// pending status now waits up to bindWait from the source's first pending
// decision (the scheduler requeues the source as soon as room appears);
// partial placements are progress and are written at once.
func TestReconcileDefersPendingWrite(t *testing.T) {
	t.Run("nothing placed: no write within bindWait, the pending status after it", func(t *testing.T) {
		e := deferEnv(t, 0, 10)
		key := e.create(v1alpha1.New(srcNS, "src", 5)).GetKey()
		wantRequeue(t, e, key)
		if n := len(e.api.statusWrites(key)); n != 0 {
			t.Fatalf("%d status writes within bindWait, want 0", n)
		}
		e.cluster.Clock().Step(10 * time.Second)
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() after bindWait = %v", err)
		}
		got := e.api.get(t, key)
		if c := got.Condition(v1alpha1.ConditionScheduled); c == nil || c.Reason != v1alpha1.ReasonNotEnoughCapacity {
			t.Errorf("after bindWait: %s, want the NotEnoughCapacity condition written", describe(got))
		}
	})
	t.Run("a pending status already written is updated at once", func(t *testing.T) {
		e := deferEnv(t, 0, 10)
		in := v1alpha1.New(srcNS, "src", 5)
		in.Status.Conditions = []metav1.Condition{scheduledCond(metav1.ConditionFalse, v1alpha1.ReasonNotEnoughCapacity, "3 vreplica(s) pending", 1)}
		key := e.create(in).GetKey()
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() = %v, want the write at once", err)
		}
		if c := e.api.get(t, key).Condition(v1alpha1.ConditionScheduled); c == nil || !strings.HasPrefix(c.Message, "5 vreplica(s) pending") {
			t.Errorf("condition %+v, want 5 pending", c)
		}
	})
	t.Run("the windows of sources never reconciled again are dropped", func(t *testing.T) {
		e := deferEnv(t, 0, 10)
		gone := e.create(v1alpha1.New(srcNS, "gone", 5)).GetKey()
		wantRequeue(t, e, gone)
		e.cluster.Clock().Step(20 * time.Second)
		key := e.create(v1alpha1.New(srcNS, "src", 5)).GetKey()
		wantRequeue(t, e, key)
		e.r.pendingMu.Lock()
		defer e.r.pendingMu.Unlock()
		if _, ok := e.r.pendingSince[gone]; ok || len(e.r.pendingSince) != 1 {
			t.Errorf("pending windows %v, want only %v's", e.r.pendingSince, key)
		}
	})
	t.Run("partial placements are written at once", func(t *testing.T) {
		e := deferEnv(t, 3, 1)
		key := e.create(v1alpha1.New(srcNS, "src", 5)).GetKey()
		if err := e.reconcile(key); err != nil {
			t.Fatalf("Reconcile() = %v", err)
		}
		if got := e.api.get(t, key); got.Status.PlacedVReplicas != 3 {
			t.Errorf("partial placements not written: %s", describe(got))
		}
	})
}

// deferEnv is an env whose reconciler waits up to 10s of the cluster's
// clock (bindWait), with opts' other options when given.
func deferEnv(t *testing.T, replicas, capacity int32, opts ...envOpts) *env {
	var o envOpts
	if len(opts) > 0 {
		o = opts[0]
	}
	o.replicas, o.capacity = replicas, capacity
	e := newEnv(t, o)
	e.r.bindWait = 10 * time.Second
	e.r.now = e.cluster.Clock().Now
	return e
}

func wantRequeue(t *testing.T, e *env, key types.NamespacedName) {
	t.Helper()
	if err := e.reconcile(key); !isRequeue(err) {
		t.Fatalf("Reconcile(%v) = %v, want a requeue", key, err)
	}
}

// TestReconcileStatefulSetMissing: while the adapter StatefulSet is
// deleted, a reconcile keeps the source's placements, sets the Scheduled
// condition to StatefulSetMissing naming it, records one Warning Event, and
// asks to be retried; once it is back, the same placements are Scheduled
// again.
func TestReconcileStatefulSetMissing(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, capacity: 10})
	key := e.create(v1alpha1.New(srcNS, "src", 7)).GetKey()
	if err := e.reconcile(key); err != nil {
		t.Fatal(err)
	}
	e.refresh(key)
	placedFirst := e.api.get(t, key).Status.Placements
	if err := e.cluster.DeleteStatefulSet(true); err != nil {
		t.Fatal(err)
	}
	if err := e.cluster.Sync(e.ctx); err != nil {
		t.Fatal(err)
	}
	const why = "StatefulSet vsched/adapter was deleted at 2025-01-01T00:00:00Z; the placements stay as they are"
	for i := range 2 {
		err := e.reconcile(key)
		if ok, delay := kcontroller.IsRequeueKey(err); !ok || delay != embedkit.StatefulSetMissingDelay {
			t.Errorf("reconcile %d while the StatefulSet is deleted = %v; want a requeue after %v", i, err, embedkit.StatefulSetMissingDelay)
		}
		e.refresh(key)
	}
	got := e.api.get(t, key)
	want := v1alpha1.SampleSourceStatus{ObservedGeneration: 1, PlacedVReplicas: 7, Placements: placedFirst,
		Conditions: []metav1.Condition{scheduledCond(metav1.ConditionFalse, v1alpha1.ReasonStatefulSetMissing, why, 1)}}
	if diff := cmp.Diff(want, got.Status, statusOpts...); diff != "" {
		t.Errorf("status while the StatefulSet is deleted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Warning StatefulSetMissing " + why}, e.recorded()); diff != "" {
		t.Errorf("Events (-want +got):\n%s", diff)
	}

	if err := e.cluster.CreateStatefulSet(3); err != nil {
		t.Fatal(err)
	}
	if err := e.cluster.Sync(e.ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.reconcile(key); err != nil {
		t.Fatal(err)
	}
	got = e.api.get(t, key)
	want.Conditions = []metav1.Condition{scheduledCond(metav1.ConditionTrue, v1alpha1.ReasonAllPlaced, "7 vreplica(s) placed on 3 pod(s)", 1)}
	if diff := cmp.Diff(want, got.Status, statusOpts...); diff != "" {
		t.Errorf("status once the StatefulSet is back (-want +got):\n%s", diff)
	}
}
