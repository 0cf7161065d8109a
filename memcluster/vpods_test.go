package memcluster_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/memcluster"
)

func key(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: name} }

func pl(pod string, n int32) vsched.Placement { return vsched.Placement{PodName: pod, VReplicas: n} }

type vpodView struct {
	Key        string
	VReplicas  int32
	Placements []vsched.Placement
	RV         string
	Resources  int32
}

func viewOf(v vsched.VPod) vpodView {
	return vpodView{v.GetKey().String(), v.GetVReplicas(), v.GetPlacements(), v.GetResourceVersion(), vsched.ResourceCount(v)}
}

func listView(t *testing.T, s *memcluster.Sources) []vpodView {
	t.Helper()
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	out := []vpodView{}
	for _, v := range list {
		out = append(out, viewOf(v))
	}
	return out
}

func rvNum(t *testing.T, rv string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Fatalf("resource version %q is not numeric", rv)
	}
	return n
}

func TestSourcesCRUD(t *testing.T) {
	s := memcluster.NewSources()
	mustCreate := func(k types.NamespacedName, n int32, parts ...int32) *vsched.PlainVPod {
		v, err := s.Create(k, n, parts...)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	b := mustCreate(key("b"), 3)
	a := mustCreate(key("a"), 5, 8)
	other := mustCreate(types.NamespacedName{Namespace: "aa", Name: "z"}, 1)
	if _, err := s.Create(key("a"), 1); !apierrors.IsAlreadyExists(err) {
		t.Errorf("Create twice: %v; want AlreadyExists", err)
	}
	if _, err := s.Create(key("c"), 1, 1, 2); err == nil {
		t.Error("Create with two partition counts succeeded")
	}
	want := []vpodView{
		{Key: "aa/z", VReplicas: 1, RV: other.GetResourceVersion()},
		{Key: "ns/a", VReplicas: 5, RV: a.GetResourceVersion(), Resources: 8},
		{Key: "ns/b", VReplicas: 3, RV: b.GetResourceVersion()},
	}
	if d := cmp.Diff(want, listView(t, s)); d != "" {
		t.Errorf("List() (-want +got):\n%s", d)
	}
	a2, err := s.Update(key("a"), 7)
	if err != nil {
		t.Fatal(err)
	}
	if a.GetVReplicas() != 5 {
		t.Error("Update changed a VPod already returned")
	}
	if rvNum(t, a2.GetResourceVersion()) <= rvNum(t, other.GetResourceVersion()) {
		t.Errorf("resource version did not increase: %s after %s", a2.GetResourceVersion(), other.GetResourceVersion())
	}
	a3, err := s.SetResourceCount(key("a"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(key("a")); got != a3 || got.GetResourceCount() != 2 || got.GetVReplicas() != 7 {
		t.Errorf("Get(a) = %v, want %v", got, a3)
	}
	if err := s.Delete(key("a")); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Delete": s.Delete(key("a")),
		"Get":    func() error { _, err := s.Get(key("a")); return err }(),
		"Update": func() error { _, err := s.Update(key("a"), 1); return err }(),
		"Commit": s.CommitPlacements(key("a"), a3.GetResourceVersion(), nil),
	} {
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s of a deleted source: %v; want NotFound", name, err)
		}
	}
	if s.Len() != 2 {
		t.Errorf("Len() = %d, want 2", s.Len())
	}
	// A source recreated under the same name starts above every earlier
	// version, as with etcd.
	a4 := mustCreate(key("a"), 1)
	if rvNum(t, a4.GetResourceVersion()) <= rvNum(t, a3.GetResourceVersion())+1 {
		t.Errorf("recreated source at %s, not above the deletion after %s", a4.GetResourceVersion(), a3.GetResourceVersion())
	}
	if a4.String() == "" {
		t.Error("empty String()")
	}
}

// TestPut: Put creates or replaces a source whole, at a new version, and
// keeps no alias of the caller's placements.
func TestPut(t *testing.T) {
	s := memcluster.NewSources()
	ps := []vsched.Placement{pl("adapter-0", 2)}
	a := s.Put(vsched.PlainVPod{Key: key("a"), VReplicas: -1, Placements: ps, ResourceVersion: "99", Resources: 4})
	ps[0].VReplicas = 9
	b := s.Put(vsched.PlainVPod{Key: key("a"), VReplicas: 3})
	want := []vpodView{{Key: "ns/a", VReplicas: 3, RV: b.GetResourceVersion()}}
	if d := cmp.Diff(want, listView(t, s)); d != "" {
		t.Errorf("List() after two Puts (-want +got):\n%s", d)
	}
	wantA := vpodView{Key: "ns/a", VReplicas: -1, Placements: []vsched.Placement{pl("adapter-0", 2)}, RV: "1", Resources: 4}
	if d := cmp.Diff(wantA, viewOf(a)); d != "" {
		t.Errorf("first Put (-want +got):\n%s", d)
	}
	if rvNum(t, b.GetResourceVersion()) <= rvNum(t, a.GetResourceVersion()) {
		t.Errorf("resource version did not increase: %s after %s", b.GetResourceVersion(), a.GetResourceVersion())
	}
}

func TestCommitPlacements(t *testing.T) {
	s := memcluster.NewSources()
	v1, _ := s.Create(key("a"), 3)
	ps := []vsched.Placement{pl("adapter-0", 2), pl("adapter-1", 1)}
	if err := s.CommitPlacements(key("a"), v1.GetResourceVersion(), ps); err != nil {
		t.Fatal(err)
	}
	ps[0].VReplicas = 99 // the store keeps its own copy
	v2, _ := s.Get(key("a"))
	if d := cmp.Diff([]vsched.Placement{pl("adapter-0", 2), pl("adapter-1", 1)}, v2.GetPlacements()); d != "" {
		t.Errorf("committed placements (-want +got):\n%s", d)
	}
	if len(v1.GetPlacements()) != 0 {
		t.Error("commit changed the version it was based on")
	}
	// A write based on a version that is no longer current must fail.
	err := s.CommitPlacements(key("a"), v1.GetResourceVersion(), []vsched.Placement{pl("adapter-2", 3)})
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale commit: %v; want a conflict", err)
	}
	if got, _ := s.Get(key("a")); got != v2 {
		t.Errorf("a failed commit changed the source to %v", got)
	}
	if _, err := s.Update(key("a"), 4); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitPlacements(key("a"), v2.GetResourceVersion(), nil); !apierrors.IsConflict(err) {
		t.Errorf("commit after a spec update: %v; want a conflict", err)
	}
}

func TestListFailAndLag(t *testing.T) {
	s := memcluster.NewSources()
	a, _ := s.Create(key("a"), 1)
	s.FreezeList()
	a2, _ := s.Update(key("a"), 2)
	b, _ := s.Create(key("b"), 1)
	if d := cmp.Diff([]vpodView{viewOf(a)}, listView(t, s)); d != "" {
		t.Errorf("frozen List() (-want +got):\n%s", d)
	}
	if got, _ := s.Get(key("a")); got != a2 {
		t.Error("Get lags with the lister")
	}
	boom := errors.New("boom")
	s.FailList(boom)
	if _, err := s.List(); !errors.Is(err, boom) {
		t.Errorf("List() error %v, want %v", err, boom)
	}
	s.FailList(nil)
	s.ThawList()
	lister := s.Lister()
	list, err := lister()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]vpodView{viewOf(a2), viewOf(b)}, func() []vpodView {
		var out []vpodView
		for _, v := range list {
			out = append(out, viewOf(v))
		}
		return out
	}()); d != "" {
		t.Errorf("thawed List() (-want +got):\n%s", d)
	}
	if s.Lists() != 3 {
		t.Errorf("Lists() = %d, want 3", s.Lists())
	}
}

func TestSourcesConcurrentCommits(t *testing.T) {
	s := memcluster.NewSources()
	_, _ = s.Create(key("a"), 1)
	v, _ := s.Get(key("a"))
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.CommitPlacements(key("a"), v.GetResourceVersion(), []vsched.Placement{pl("adapter-"+strconv.Itoa(i), 1)})
			if err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if !apierrors.IsConflict(err) {
				t.Error(err)
			}
			_, _ = s.List()
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d commits based on one version succeeded, want exactly 1", wins)
	}
}

// stubScheduler returns fixed placements and error.
type stubScheduler struct {
	ps   []vsched.Placement
	err  error
	seen []string
}

func (s *stubScheduler) Schedule(_ context.Context, v vsched.VPod) ([]vsched.Placement, error) {
	s.seen = append(s.seen, v.GetResourceVersion())
	return s.ps, s.err
}

func TestReconcile(t *testing.T) {
	ctx := context.Background()
	pending := &vsched.PendingError{Key: key("a"), Pending: 2}
	tests := []struct {
		name      string
		sched     *stubScheduler
		wantErr   error
		wantPl    []vsched.Placement
		wantWrite bool
	}{
		{"placed", &stubScheduler{ps: []vsched.Placement{pl("adapter-0", 3)}}, nil, []vsched.Placement{pl("adapter-0", 3)}, true},
		{"partial placements are committed", &stubScheduler{ps: []vsched.Placement{pl("adapter-0", 1)}, err: pending}, pending, []vsched.Placement{pl("adapter-0", 1)}, true},
		{"other errors commit nothing", &stubScheduler{err: vsched.ErrNotLeader}, vsched.ErrNotLeader, nil, false},
		{"no change, no write", &stubScheduler{}, nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := memcluster.NewSources()
			before, _ := s.Create(key("a"), 3)
			_, err := s.Reconcile(ctx, tc.sched, key("a"))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Reconcile error %v, want %v", err, tc.wantErr)
			}
			after, _ := s.Get(key("a"))
			if wrote := after != before; wrote != tc.wantWrite {
				t.Errorf("wrote = %v, want %v", wrote, tc.wantWrite)
			}
			if d := cmp.Diff(tc.wantPl, after.GetPlacements()); d != "" {
				t.Errorf("placements (-want +got):\n%s", d)
			}
		})
	}
	s := memcluster.NewSources()
	if _, err := s.Reconcile(ctx, &stubScheduler{}, key("gone")); !apierrors.IsNotFound(err) {
		t.Errorf("Reconcile of a missing source: %v; want NotFound", err)
	}
	// A conflicting write between read and commit surfaces as a conflict.
	_, _ = s.Create(key("a"), 1)
	racer := &racingScheduler{s: s}
	if _, err := s.Reconcile(ctx, racer, key("a")); !apierrors.IsConflict(err) {
		t.Errorf("Reconcile racing a spec update: %v; want a conflict", err)
	}
}

// racingScheduler updates the source while "scheduling" it.
type racingScheduler struct{ s *memcluster.Sources }

func (r *racingScheduler) Schedule(_ context.Context, v vsched.VPod) ([]vsched.Placement, error) {
	_, _ = r.s.Update(v.GetKey(), 2)
	return []vsched.Placement{pl("adapter-0", 1)}, nil
}
