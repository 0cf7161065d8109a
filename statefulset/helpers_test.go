package statefulset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/state"
)

// The tests' policies and their helpers: placements as ordinal/count
// pairs and the checks on them, scheduling and reading a scheduler's state,
// and a recorder of requeues.

// kafkaHAScheduler is the Kafka HA scheduler profile.
var kafkaHAScheduler = map[string]string{
	"predicates": `[
		{"Name": "PodFitsResources"},
		{"Name": "NoMaxResourceCount", "Args": "{\"NumPartitions\": 100}"}
	]`,
	"priorities": `[
		{"Name": "AvailabilityZonePriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		{"Name": "LowestOrdinalPriority", "Weight": 2},
		{"Name": "EvenPodSpread", "Weight": 2, "Args": "{\"MaxSkew\": 2}"}
	]`,
}

// designDescheduler is the descheduler profile of the design document.
var designDescheduler = map[string]string{
	"priorities": `[
		{"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		{"Name": "RemoveWithAvailabilityZonePriority", "Weight": 10, "Args": "{\"MaxSkew\": 2}"},
		{"Name": "RemoveWithHighestOrdinalPriority", "Weight": 2}
	]`,
}

// profilesFromData builds profiles from ConfigMap data; nil means the
// default policy.
func profilesFromData(t testing.TB, sched, desched map[string]string) config.ProfilesSource {
	t.Helper()
	var scm, dcm *corev1.ConfigMap
	if sched != nil {
		scm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultSchedulerConfigMapName}, Data: sched}
	}
	if desched != nil {
		dcm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: config.DefaultDeschedulerConfigMapName}, Data: desched}
	}
	ps, err := config.ProfilesFromConfigMaps(context.Background(), inTree, scm, dcm)
	if err != nil {
		t.Fatalf("building profiles: %v", err)
	}
	return ps
}

// quietCtx is a context whose logger discards everything; tests that check
// logging install an observer instead.
func quietCtx() context.Context {
	return logging.WithLogger(context.Background(), zap.NewNop().Sugar())
}

// placements builds a placement list from ordinal/count pairs.
func placements(pairs ...int32) []vsched.Placement {
	out := make([]vsched.Placement, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, vsched.Placement{PodName: vsched.PodName(testSet, pairs[i]), VReplicas: pairs[i+1]})
	}
	return out
}

// counts maps ordinal to vreplicas, failing on anything but a valid,
// non-duplicated pod of the StatefulSet.
func counts(t testing.TB, ps []vsched.Placement) map[int32]int32 {
	t.Helper()
	if err := vsched.ValidatePlacements(ps); err != nil {
		t.Fatalf("invalid placements %v: %v", ps, err)
	}
	out := map[int32]int32{}
	for _, p := range ps {
		if p.VReplicas == 0 {
			continue
		}
		if !strings.HasPrefix(p.PodName, testSet+"-") {
			t.Fatalf("placement on a pod of another StatefulSet: %v", ps)
		}
		ord, _ := vsched.OrdinalFromPodName(p.PodName)
		out[ord] += p.VReplicas
	}
	return out
}

// short renders placements as "0:2 1:1" for messages.
func short(ps []vsched.Placement) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		ord, err := vsched.OrdinalFromPodName(p.PodName)
		if err != nil {
			parts = append(parts, fmt.Sprintf("%s:%d", p.PodName, p.VReplicas))
			continue
		}
		parts = append(parts, fmt.Sprintf("%d:%d", ord, p.VReplicas))
	}
	return strings.Join(parts, " ")
}

// wantPlacements compares ordinal:count pairs, ignoring node and zone.
func wantPlacements(t testing.TB, got []vsched.Placement, pairs ...int32) {
	t.Helper()
	if g, w := short(got), short(placements(pairs...)); g != w {
		t.Fatalf("placements = [%s], want [%s]", g, w)
	}
}

// scheduleOK schedules the source's current snapshot and writes the result
// to its status, failing on any error.
func scheduleOK(t testing.TB, s *Scheduler, c *kubeCluster, name string) []vsched.Placement {
	t.Helper()
	ps, err := s.Schedule(quietCtx(), c.store.get(name))
	if err != nil {
		t.Fatalf("Schedule(%s): %v", name, err)
	}
	c.store.writeStatus(name, ps)
	return ps
}

// used is what the state counts on each pod, committed and reserved.
func used(s *Scheduler) map[int32]int32 {
	out := map[int32]int32{}
	s.withState(func(st *state.State) {
		for ord := int32(0); ord < st.NumPods(); ord++ {
			if u := st.Used(ord); u != 0 {
				out[ord] = u
			}
		}
	})
	return out
}

func reservation(s *Scheduler, name string) (state.Reservation, bool) {
	var r state.Reservation
	var ok bool
	s.withState(func(st *state.State) { r, ok = st.ReservationOf(srcKey(name)) })
	return r, ok
}

// recorder collects Requeue and pending-hook callbacks, which arrive from
// informer goroutines as well as from Schedule.
type recorder struct {
	mu       sync.Mutex
	requeued []types.NamespacedName
	pending  int
}

func (r *recorder) requeue(k types.NamespacedName) {
	r.mu.Lock()
	r.requeued = append(r.requeued, k)
	r.mu.Unlock()
}

func (r *recorder) onPending() {
	r.mu.Lock()
	r.pending++
	r.mu.Unlock()
}

// take returns and clears the requeued keys.
func (r *recorder) take() []types.NamespacedName {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.requeued
	r.requeued = nil
	return out
}

func (r *recorder) pendingCalls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pending
}

func (r *recorder) opts(cfg *Config) { cfg.Requeue = r.requeue }

// start starts a scheduler on c that reports to r: its requeues, and its
// pending hook.
func (r *recorder) start(c *kubeCluster, opts ...startOpts) *Scheduler {
	c.t.Helper()
	s := c.start(append(opts, r.opts)...)
	s.SetPendingHook(r.onPending)
	return s
}

func ptrTo[T any](v T) *T { return &v }

func contains(keys []types.NamespacedName, k types.NamespacedName) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

var errListerDown = errors.New("source lister unavailable")
