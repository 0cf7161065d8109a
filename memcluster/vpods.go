package memcluster

import (
	"context"
	"errors"
	"fmt"
	corev1 "k8s.io/api/core/v1"
	"slices"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// SourceResource is the resource Sources' errors name, so that
// apierrors.IsNotFound, IsAlreadyExists and IsConflict recognise them.
var SourceResource = schema.GroupResource{Group: "sources.vsched.dev", Resource: "vpods"}

// Sources is an in-memory store of sources standing in for a source
// controller's custom resources and their lister. Resource versions come
// from one counter, so every write yields a higher one than any before, as
// with etcd. It is safe for concurrent use.
//
// Each source version is a *vsched.PlainVPod that the store never modifies
// once returned: every write makes a new one, so a caller holding an old
// one holds a stale read, exactly as with an informer cache. Callers must
// not modify it either.
type Sources struct {
	mu       sync.Mutex
	rv       uint64
	items    map[types.NamespacedName]*vsched.PlainVPod
	listErr  error
	frozen   []vsched.VPod // non-nil while the lister lags
	unsynced bool
	lists    int

	// Injected commit faults, consulted in this order.
	commitHook CommitHook
	failN      int
	failErr    error
	conflictN  int
}

// CommitHook sees every CommitPlacements call before it applies; a non-nil
// error fails the call and nothing is stored.
type CommitHook func(key types.NamespacedName, basedOnRV string, placements []vsched.Placement) error

// NewSources returns an empty store, its lister synced.
func NewSources() *Sources {
	return &Sources{items: map[types.NamespacedName]*vsched.PlainVPod{}}
}

func (s *Sources) nextRV() string {
	s.rv++
	return strconv.FormatUint(s.rv, 10)
}

// Create adds a source wanting vreplicas, with no placements. An optional
// partition count is reported as its resource count.
func (s *Sources) Create(key types.NamespacedName, vreplicas int32, partitions ...int32) (*vsched.PlainVPod, error) {
	if len(partitions) > 1 {
		return nil, fmt.Errorf("memcluster: at most one partition count, got %d", len(partitions))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[key]; ok {
		return nil, apierrors.NewAlreadyExists(SourceResource, key.String())
	}
	v := &vsched.PlainVPod{Key: key, VReplicas: vreplicas, ResourceVersion: s.nextRV()}
	if len(partitions) == 1 {
		v.Resources = partitions[0]
	}
	s.items[key] = v
	return v, nil
}

// Put stores the source as given, spec and status at once, creating or
// replacing it unconditionally at a new resource version (the one given is
// ignored). It arranges a state no controller's writes would reach in one
// step: a status written by someone else, placements that break the
// rules, a negative spec.
func (s *Sources) Put(v vsched.PlainVPod) *vsched.PlainVPod {
	s.mu.Lock()
	defer s.mu.Unlock()
	v.Placements = slices.Clone(v.Placements)
	v.ResourceVersion = s.nextRV()
	s.items[v.Key] = &v
	return &v
}

// update replaces the source with a modified copy at a new version.
func (s *Sources) update(key types.NamespacedName, mutate func(*vsched.PlainVPod) error) (*vsched.PlainVPod, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.items[key]
	if !ok {
		return nil, apierrors.NewNotFound(SourceResource, key.String())
	}
	v := *old
	if err := mutate(&v); err != nil {
		return nil, err
	}
	v.ResourceVersion = s.nextRV()
	s.items[key] = &v
	return &v, nil
}

// Update changes how many vreplicas the source wants, as a user editing its
// spec would (unconditionally).
func (s *Sources) Update(key types.NamespacedName, vreplicas int32) (*vsched.PlainVPod, error) {
	return s.update(key, func(v *vsched.PlainVPod) error { v.VReplicas = vreplicas; return nil })
}

// SetResourceCount changes the source's partition count.
func (s *Sources) SetResourceCount(key types.NamespacedName, n int32) (*vsched.PlainVPod, error) {
	return s.update(key, func(v *vsched.PlainVPod) error { v.Resources = n; return nil })
}

// SetCost sets what one of the source's vreplicas costs
// (vsched.VReplicaCoster); nil declares none. It is a new version.
func (s *Sources) SetCost(key types.NamespacedName, cost corev1.ResourceList) (*vsched.PlainVPod, error) {
	return s.update(key, func(v *vsched.PlainVPod) error { v.Cost = cost.DeepCopy(); return nil })
}

// CommitPlacements stores placements in the source's status, as a
// controller's status update does: it is conditional on basedOnRV being the
// source's current resource version, and fails with a conflict error
// (apierrors.IsConflict) when another write came first.
//
// Faults injected with SetCommitHook, FailCommits and ConflictCommits apply
// first, in that order.
func (s *Sources) CommitPlacements(key types.NamespacedName, basedOnRV string, placements []vsched.Placement) error {
	if err := s.injectedFault(key, basedOnRV, placements); err != nil {
		return err
	}
	_, err := s.update(key, func(v *vsched.PlainVPod) error {
		if v.ResourceVersion != basedOnRV {
			return apierrors.NewConflict(SourceResource, key.String(),
				fmt.Errorf("the object has been modified: resource version is %s, the update was based on %s", v.ResourceVersion, basedOnRV))
		}
		v.Placements = slices.Clone(placements)
		return nil
	})
	return err
}

// SetCommitHook installs h (nil removes it) in front of every
// CommitPlacements call. It is called without the store's lock held, so it
// may read or write the store.
func (s *Sources) SetCommitHook(h CommitHook) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commitHook = h
}

// FailCommits makes the next n CommitPlacements calls fail with err (a
// transient error such as apierrors.NewServiceUnavailable, or a timeout)
// without storing anything. n <= 0 ends an injection in force.
func (s *Sources) FailCommits(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failN, s.failErr = max(n, 0), err
}

// ConflictCommits makes the next n CommitPlacements calls, on sources that
// exist, lose a race: another writer (a spec or label change) updates the
// source first, giving it a new resource version without touching its
// placements, and the call fails with a conflict, as it would have on its
// own. n <= 0 ends an injection in force.
func (s *Sources) ConflictCommits(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conflictN = max(n, 0)
}

func (s *Sources) injectedFault(key types.NamespacedName, basedOnRV string, placements []vsched.Placement) error {
	s.mu.Lock()
	hook := s.commitHook
	s.mu.Unlock()
	if hook != nil {
		if err := hook(key, basedOnRV, slices.Clone(placements)); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failN > 0 {
		s.failN--
		return s.failErr
	}
	if v, ok := s.items[key]; ok && s.conflictN > 0 {
		s.conflictN--
		w := *v
		w.ResourceVersion = s.nextRV()
		s.items[key] = &w
		return apierrors.NewConflict(SourceResource, key.String(),
			fmt.Errorf("the object has been modified: resource version is %s, the update was based on %s", w.ResourceVersion, basedOnRV))
	}
	return nil
}

// Delete removes the source.
func (s *Sources) Delete(key types.NamespacedName) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[key]; !ok {
		return apierrors.NewNotFound(SourceResource, key.String())
	}
	delete(s.items, key)
	s.rv++ // a deletion is a write too
	return nil
}

// Get returns the source's current version. Unlike List it never lags or
// fails on request: it stands for a read from the API server.
func (s *Sources) Get(key types.NamespacedName) (*vsched.PlainVPod, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.items[key]
	if !ok {
		return nil, apierrors.NewNotFound(SourceResource, key.String())
	}
	return v, nil
}

// List returns every source sorted by key; it has the type of
// vsched.VPodLister. While FailList is in force it fails; while the lister
// is not synced (SetSynced(false)) it returns an empty list and no error;
// and while the list is frozen it returns the snapshot taken by FreezeList.
func (s *Sources) List() ([]vsched.VPod, error) { return s.list(true) }

// ListFresh lists every source as the API server holds it: neither a frozen
// nor an unsynced lister affects it, FailList does. Pass it as
// statefulset.Config.FreshLister.
func (s *Sources) ListFresh() ([]vsched.VPod, error) { return s.list(false) }

// list counts the call and lists, failing while FailList is in force; the
// lister's view (not synced, frozen) applies when viaLister.
func (s *Sources) list(viaLister bool) ([]vsched.VPod, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	switch {
	case s.listErr != nil:
		return nil, s.listErr
	case viaLister && s.unsynced:
		return []vsched.VPod{}, nil
	case viaLister && s.frozen != nil:
		return slices.Clone(s.frozen), nil
	}
	return s.snapshotLocked(), nil
}

func (s *Sources) snapshotLocked() []vsched.VPod {
	keys := make([]types.NamespacedName, 0, len(s.items))
	for k := range s.items {
		keys = append(keys, k)
	}
	state.SortKeys(keys)
	out := make([]vsched.VPod, len(keys))
	for i, k := range keys {
		out[i] = s.items[k]
	}
	return out
}

// Lister returns List as a vsched.VPodLister.
func (s *Sources) Lister() vsched.VPodLister { return s.List }

// Lists counts List calls, failed ones included.
func (s *Sources) Lists() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

// Len is how many sources exist.
func (s *Sources) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

// FailList makes List fail with err until FailList(nil).
func (s *Sources) FailList(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listErr = err
}

// FreezeList makes List lag: until ThawList it returns the sources as they
// are now, whatever is written meanwhile (Get still sees the writes).
func (s *Sources) FreezeList() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frozen = s.snapshotLocked()
}

// Frozen reports whether List lags (FreezeList until ThawList).
func (s *Sources) Frozen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frozen != nil
}

// SetSynced(false) makes the lister behave as one whose informer has not
// synced yet: List returns an empty list without an error (a real lister
// cannot tell "no sources" from "not synced yet"), and HasSynced reports
// false, until SetSynced(true). A new store is synced.
func (s *Sources) SetSynced(synced bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unsynced = !synced
}

// HasSynced reports whether the lister has synced, as an informer's
// HasSynced does; it is what a scheduler's readiness check asks.
func (s *Sources) HasSynced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.unsynced
}

// ThawList lets List catch up.
func (s *Sources) ThawList() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frozen = nil
}

// Reconcile does what a source controller does with a scheduler: it reads
// the source, schedules it, and commits the placements to its status
// (skipping a write that would change nothing). Placements that leave
// vreplicas pending are committed too, and the scheduler's error returned.
// A conflict on commit is returned as is; the caller retries as a
// controller would requeue.
func (s *Sources) Reconcile(ctx context.Context, sched vsched.Scheduler, key types.NamespacedName) ([]vsched.Placement, error) {
	v, err := s.Get(key)
	if err != nil {
		return nil, err
	}
	placements, schedErr := sched.Schedule(ctx, v)
	if schedErr != nil && !errors.Is(schedErr, vsched.ErrNotEnoughReplicas) {
		return nil, schedErr
	}
	if !slices.Equal(placements, v.GetPlacements()) {
		if err := s.CommitPlacements(key, v.GetResourceVersion(), placements); err != nil {
			return placements, err
		}
	}
	return placements, schedErr
}
