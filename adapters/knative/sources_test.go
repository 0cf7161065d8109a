package knative_test

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	duckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"
)

// source is a Knative VPod as a source controller's lister returns it: a
// snapshot at one resource version.
type source struct {
	key        types.NamespacedName
	vreplicas  int32
	placements []duckv1alpha1.Placement
	rv         string
}

func (s *source) GetDeletionTimestamp() *metav1.Time      { return nil }
func (s *source) GetKey() types.NamespacedName            { return s.key }
func (s *source) GetVReplicas() int32                     { return s.vreplicas }
func (s *source) GetPlacements() []duckv1alpha1.Placement { return s.placements }
func (s *source) GetResourceVersion() string              { return s.rv }

// sources stands in for the source controller's informer and status writes:
// every write stores a new snapshot at a new resource version.
type sources struct {
	mu    sync.Mutex
	byKey map[types.NamespacedName]*source
	rv    int
}

func newSources() *sources { return &sources{byKey: map[types.NamespacedName]*source{}} }

func (s *sources) write(key types.NamespacedName, change func(*source)) *source {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := &source{key: key}
	if old := s.byKey[key]; old != nil {
		*next = *old
	}
	change(next)
	s.rv++
	next.rv = strconv.Itoa(s.rv)
	s.byKey[key] = next
	return next
}

func (s *sources) get(key types.NamespacedName) *source {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byKey[key]
}

// list is a scheduler.VPodLister, sorted by key.
func (s *sources) list() ([]scheduler.VPod, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]scheduler.VPod, 0, len(s.byKey))
	for _, v := range s.byKey {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b scheduler.VPod) int {
		return compareKeys(a.GetKey(), b.GetKey())
	})
	return out, nil
}

func compareKeys(a, b types.NamespacedName) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

// reconcile is what a Knative source reconciler does: schedule the source
// as read, then write the placements (partial ones too) to its status.
func (s *sources) reconcile(ctx context.Context, sched scheduler.Scheduler, key types.NamespacedName) ([]duckv1alpha1.Placement, error) {
	ps, err := sched.Schedule(ctx, s.get(key))
	if ps != nil {
		s.write(key, func(v *source) { v.placements = ps })
	}
	return ps, err
}
