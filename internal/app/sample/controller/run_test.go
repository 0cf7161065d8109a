package controller

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/system"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/memcluster"
)

// The tests below run the whole controller (Run) on fakes: the cluster is
// a memcluster's fake clientset, the SampleSource API the apiServer above,
// and Run builds its own informers, work queue, scheduler and autoscaler
// over them, as in a cluster. They wait for outcomes with a deadline, never
// for fixed times.

// runTimeout bounds every wait for an outcome. It is generous because each
// wait returns as soon as the outcome is seen: only a broken controller
// waits it out, and a -race run on a loaded CI machine must not.
const runTimeout = 30 * time.Second

// recommendOnly keeps the autoscaler from writing: the memcluster has no
// StatefulSet controller, and these tests hold its size fixed.
var recommendOnly = map[string]string{config.KeyRecommendOnly: "true"}

type runEnv struct {
	t       *testing.T
	cluster *memcluster.Cluster
	api     *apiServer
	logs    *observer.ObservedLogs

	mu      sync.Mutex
	watches map[string]int
	scale   []string // statefulsets/scale requests, which no test expects
}

// startRun starts Run on a memcluster with replicas pods, after storing
// config-autoscaler with the given data and the sources in before. It
// returns once every informer Run started is watching, so that a write
// made afterwards reaches them (the fake drops events sent before a watch
// opens).
func startRun(t *testing.T, replicas, capacity int32, autoscaler map[string]string, before ...*v1alpha1.SampleSource) *runEnv {
	t.Helper()
	c, err := memcluster.New(context.Background(), memcluster.Options{
		Zones: []string{"zone-a", "zone-b", "zone-c"}, Replicas: replicas, Capacity: capacity, SyncTimeout: runTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	e := &runEnv{t: t, cluster: c, api: newAPIServer(), watches: map[string]int{}}
	kube := c.Client()
	kube.PrependWatchReactor("*", func(action k8stesting.Action) (bool, watch.Interface, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.watches[action.GetResource().Resource]++
		return false, nil, nil // memcluster's reactor opens it
	})
	kube.PrependReactor("*", "statefulsets", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "scale" {
			return false, nil, nil
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		e.scale = append(e.scale, action.GetVerb())
		return true, nil, apierrs.NewForbidden(action.GetResource().GroupResource(), c.StatefulSetName(), errors.New("not in this test"))
	})
	if _, err := kube.CoreV1().ConfigMaps(c.Namespace()).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace(), Name: config.DefaultAutoscalerConfigMapName},
		Data:       autoscaler,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range before {
		e.api.create(t, s)
	}

	// The logger outlives the test by a moment (informers wind down after
	// Run returns), so it must not write to t.
	core, logs := observer.New(zapcore.DebugLevel)
	e.logs = logs
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.New(core).Sugar()))
	t.Setenv(system.NamespaceEnvKey, c.Namespace())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{
			Namespace: c.Namespace(), StatefulSet: c.StatefulSetName(), Capacity: capacity,
			Threadiness: 2, Kube: kube, Dynamic: e.api.client,
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run() = %v", err)
			}
		case <-time.After(runTimeout):
			t.Errorf("Run did not return after its context was cancelled")
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if len(e.scale) > 0 {
			t.Errorf("the autoscaler sent statefulsets/scale requests %v", e.scale)
		}
	})

	select {
	case <-e.api.watching:
	case err := <-done:
		t.Fatalf("Run() = %v before watching sources", err)
	case <-time.After(runTimeout):
		t.Fatal("Run did not start watching SampleSources")
	}
	eventually(t, runTimeout, "Run's informers to watch pods, nodes and the StatefulSet", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.watches["pods"] > 0 && e.watches["nodes"] > 0 && e.watches["statefulsets"] > 0
	})
	return e
}

// waitFor polls the stored source until cond holds.
func (e *runEnv) waitFor(key types.NamespacedName, what string, cond func(*v1alpha1.SampleSource) bool) *v1alpha1.SampleSource {
	e.t.Helper()
	var last *v1alpha1.SampleSource
	deadline := time.Now().Add(runTimeout)
	for {
		last = e.api.tryGet(key)
		if last != nil && cond(last) {
			return last
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s %s; last seen %s", key, what, describe(last))
		}
		time.Sleep(time.Millisecond)
	}
}

// rvLess compares the apiServer's numeric resource versions.
func rvLess(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA != nil || errB != nil || x < y
}

func (e *runEnv) logged(msg string) bool {
	return e.logs.FilterMessage(msg).Len() > 0
}

// TestRunStaleWriteRetried runs the controller and makes a user change a
// source's spec while the controller is writing the status decided from
// the old spec. The write conflicts and lands nothing, the work queue
// retries from a fresh read, and the end state holds the new spec's
// vreplicas once: the capacity left is exactly what the other sources can
// fill.
func TestRunStaleWriteRetried(t *testing.T) {
	early := v1alpha1.New(srcNS, "early", 5) // exists before the controller starts
	e := startRun(t, 3, 10, recommendOnly, early)
	e.waitFor(early.GetKey(), "to be placed", allPlaced)

	// The first status write of b meets a user's edit of its spec.
	interfered := false // the server calls interfere under its lock
	e.api.setInterfere(func(n int, sent *v1alpha1.SampleSource) func(*v1alpha1.SampleSource) {
		if sent.Name != "b" || interfered {
			return nil
		}
		interfered = true
		return func(s *v1alpha1.SampleSource) { s.Spec.VReplicas = 4 }
	})
	created := e.api.create(t, v1alpha1.New(srcNS, "b", 6))
	b := e.waitFor(created.GetKey(), "to be placed at generation 2", func(s *v1alpha1.SampleSource) bool {
		return s.Generation == 2 && allPlaced(s)
	})
	others := e.api.otherWrites()
	if len(others) != 1 {
		t.Fatalf("%d interfering writes, want 1", len(others))
	}
	edited := others[0]

	// The first write, decided from the version read before the edit,
	// carries that version and is refused. Later reconciles may still
	// read an older version than the stored one (the informer lags the
	// controller's own writes too); those writes are refused as well.
	// Every write that lands was decided from a read of the edited
	// object or later.
	writes := e.api.statusWrites(b.GetKey())
	if len(writes) < 2 || !writes[0].Conflict || writes[0].SentRV != created.ResourceVersion {
		t.Fatalf("status writes of b = %+v; want the first, carrying the version read (%s), refused", writes, created.ResourceVersion)
	}
	if vsched.TotalVReplicas(writes[0].Placements) != 6 {
		t.Errorf("the stale write carried %v, want the 6 vreplicas decided from the old spec", writes[0].Placements)
	}
	var landed []statusWrite
	for i, w := range writes {
		if w.Conflict {
			continue
		}
		landed = append(landed, w)
		if rvLess(w.SentRV, edited.ResourceVersion) {
			t.Errorf("write %d = %+v landed, decided from version %s, older than the edit %s", i, w, w.SentRV, edited.ResourceVersion)
		}
		if n := vsched.TotalVReplicas(w.Placements); n != 4 {
			t.Errorf("write %d landed %d vreplicas, want the edited spec's 4", i, n)
		}
	}
	if len(landed) == 0 || landed[0].SentRV != edited.ResourceVersion {
		t.Errorf("status writes of b = %+v; want the first to land to be a retry from the edited version %s", writes, edited.ResourceVersion)
	}
	checkPlacementsValid(t, b)
	if b.Status.PlacedVReplicas != 4 {
		t.Errorf("b = %s, want the edited spec's 4 vreplicas", describe(b))
	}
	if !e.logged("status write conflicted; retrying from a fresh read") {
		t.Errorf("the conflict was not logged")
	}

	// Nothing of the stale decision still holds capacity: a source
	// taking exactly what is left is placed in full, and the three pods
	// are exactly full.
	c := e.api.create(t, v1alpha1.New(srcNS, "c", 30-5-4))
	cs := e.waitFor(c.GetKey(), "to be placed in full", allPlaced)
	want := map[string]int32{"adapter-0": 10, "adapter-1": 10, "adapter-2": 10}
	all := []*v1alpha1.SampleSource{e.api.get(t, early.GetKey()), e.api.get(t, b.GetKey()), cs}
	if diff := cmp.Diff(want, placed(all...)); diff != "" {
		t.Errorf("vreplicas per pod over every source (-want +got):\n%s", diff)
	}
	for _, s := range all {
		checkPlacementsValid(t, s)
	}
}

// TestRunDeletedSourceFreesCapacity: deleting a source (the informer's
// delete event) frees its capacity at once, and the scheduler's requeue
// reaches the controller's work queue: the source waiting for room is
// placed in full, its condition going from NotEnoughCapacity to True.
func TestRunDeletedSourceFreesCapacity(t *testing.T) {
	e := startRun(t, 3, 4, recommendOnly)
	a := e.api.create(t, v1alpha1.New(srcNS, "a", 8))
	e.waitFor(a.GetKey(), "to be placed", allPlaced)
	b := e.api.create(t, v1alpha1.New(srcNS, "b", 8))
	pending := e.waitFor(b.GetKey(), "to be partly placed", settled)
	c := pending.Condition(v1alpha1.ConditionScheduled)
	if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonNotEnoughCapacity ||
		!strings.HasPrefix(c.Message, "4 vreplica(s) pending") || pending.Status.PlacedVReplicas != 4 {
		t.Fatalf("b = %s, want 4 placed and a NotEnoughCapacity condition counting 4 pending", describe(pending))
	}

	e.api.delete(t, a.GetKey())
	got := e.waitFor(b.GetKey(), "to be placed once a is deleted", allPlaced)
	checkPlacementsValid(t, got)
	if diff := cmp.Diff(map[string]int32{"adapter-0": 3, "adapter-1": 3, "adapter-2": 2}, placed(got)); diff != "" {
		t.Errorf("b's vreplicas per pod (-want +got):\n%s", diff)
	}
}

// TestRunDrainProtocol: when the autoscaler drains a pod (here, one whose
// node is lost), its Evictor only enqueues the sources on it; the next
// reconcile moves their vreplicas off the pod, writing the result in one
// status update.
func TestRunDrainProtocol(t *testing.T) {
	e := startRun(t, 3, 10, map[string]string{
		config.KeyMinReplicas:         "3",
		config.KeyMaxReplicas:         "3",
		config.KeyUnavailablePodGrace: "0s",
		config.KeyRefreshPeriod:       "20ms",
	})
	src := e.api.create(t, v1alpha1.New(srcNS, "src", 6))
	first := e.waitFor(src.GetKey(), "to be placed", allPlaced)
	if diff := cmp.Diff([]vsched.Placement{pl(0, 2), pl(1, 2), pl(2, 2)}, first.Status.Placements); diff != "" {
		t.Fatalf("first placement (-want +got):\n%s", diff)
	}
	writesBefore := len(e.api.statusWrites(src.GetKey()))

	if err := e.cluster.FailNode("node-zone-c-0"); err != nil { // adapter-2's node
		t.Fatal(err)
	}
	moved := e.waitFor(src.GetKey(), "to move off adapter-2", func(s *v1alpha1.SampleSource) bool {
		return vsched.PlacementForPod(s.Status.Placements, "adapter-2") == nil
	})
	if diff := cmp.Diff([]vsched.Placement{pl(0, 3), pl(1, 3)}, moved.Status.Placements); diff != "" {
		t.Errorf("placements after the drain (-want +got):\n%s", diff)
	}
	checkPlacementsValid(t, moved)
	if !allPlaced(moved) {
		t.Errorf("after the move %s, want every vreplica placed", describe(moved))
	}
	// One write lands, based on the version that held the drained
	// placements. (Writes from a lister lagging the controller's own
	// writes may be refused around it; they change nothing.)
	var landed []statusWrite
	for _, w := range e.api.statusWrites(src.GetKey())[writesBefore:] {
		if !w.Conflict {
			landed = append(landed, w)
		}
	}
	if len(landed) != 1 || landed[0].SentRV != first.ResourceVersion {
		t.Errorf("status writes landed for the move = %+v; want one, based on version %s", landed, first.ResourceVersion)
	}
	pod, err := e.cluster.Pod(2)
	if err != nil {
		t.Fatal(err)
	}
	if got := pod.Annotations[evictor.DefaultAnnotation]; got != evictor.ReasonUnavailable {
		t.Errorf("adapter-2's draining annotation = %q, want %q (the evictor's mark)", got, evictor.ReasonUnavailable)
	}
}
