package statefulset

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched"
)

// gatedLister is a FreshLister that holds every call until released, and
// returns fresh copies of the store's sources, as a list from the API
// server does, keeping only weak pointers to them.
type gatedLister struct {
	store   *sourceStore
	release chan struct{}

	mu     sync.Mutex
	calls  int
	copies []weak.Pointer[testSource]
}

func (g *gatedLister) list() ([]vsched.VPod, error) {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	<-g.release
	vpods, err := g.store.list()
	if err != nil {
		return nil, err
	}
	out := make([]vsched.VPod, len(vpods))
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, v := range vpods {
		cp := *v.(*testSource)
		cp.placements = append([]vsched.Placement(nil), cp.placements...)
		out[i] = &cp
		g.copies = append(g.copies, weak.Make(&cp))
	}
	return out, nil
}

// counts returns the calls so far and how many of the listed copies are
// still reachable.
func (g *gatedLister) counts() (calls, kept int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, w := range g.copies {
		if w.Value() != nil {
			kept++
		}
	}
	return g.calls, kept
}

func (s *Scheduler) termWaiters() int {
	s.termMu.Lock()
	defer s.termMu.Unlock()
	if s.term == nil {
		return 0
	}
	return s.term.waiters
}

// TestTermFirstReadShared: the calls that start a term together (a
// restarted controller's workers) list every source once between them, not
// once each, and no listed source stays referenced once the term is
// loaded (make e2e-scale's restarted controller held several lists of
// 10,000 sources at once).
func TestTermFirstReadShared(t *testing.T) {
	const workers = 4
	c := zones3(t, 3)
	for i := range workers {
		name := fmt.Sprintf("s%d", i)
		c.store.create(name, 2)
		c.store.writeStatus(name, placements(int32(i%3), 2))
	}
	fresh := &gatedLister{store: c.store, release: make(chan struct{})}
	s := c.start(func(cfg *Config) { cfg.FreshLister = fresh.list })

	results := make([][]vsched.Placement, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() { results[i], errs[i] = s.Schedule(quietCtx(), c.store.get(fmt.Sprintf("s%d", i))) })
	}
	// Every call is either listing or waiting for the one that lists.
	for {
		calls, _ := fresh.counts()
		if calls == workers || calls == 1 && s.termWaiters() == workers-1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(fresh.release)
	wg.Wait()

	if n, _ := fresh.counts(); n != 1 {
		t.Errorf("%d calls starting a term listed the sources %d times, want once", workers, n)
	}
	for i := range workers {
		if errs[i] != nil {
			t.Fatalf("Schedule(s%d) = %v", i, errs[i])
		}
		got := results[i]
		for j := range got {
			got[j].ZoneName, got[j].NodeName = "", ""
		}
		if diff := cmp.Diff(placements(int32(i%3), 2), got); diff != "" {
			t.Errorf("s%d moved (-committed +decided):\n%s", i, diff)
		}
	}
	runtime.GC()
	if _, n := fresh.counts(); n != 0 {
		t.Errorf("after the term's load, %d of the %d listed sources are still referenced", n, workers)
	}
}

// TestTermReadNotKeptAfterFailedResync: a resync that read the term's start
// but could not list the sources leaves no read behind for the term's
// first Schedule, which reads the StatefulSet afresh.
func TestTermReadNotKeptAfterFailedResync(t *testing.T) {
	c := zones3(t, 3)
	c.store.create("a", 2)
	s := c.start()
	var reads atomic.Int32
	s.SetStatefulSetReader(func(ctx context.Context) (*appsv1.StatefulSet, error) {
		reads.Add(1)
		return c.client.AppsV1().StatefulSets(testNS).Get(ctx, testSet, metav1.GetOptions{})
	})
	c.store.failLists(errors.New("lister down"))
	if err := s.Resync(quietCtx()); err == nil {
		t.Fatal("Resync() with the lister down = nil, want its error")
	}
	c.store.failLists(nil)
	scheduleOK(t, s, c, "a")
	if n := reads.Load(); n != 2 {
		t.Errorf("the StatefulSet was read %d times, want 2: the failed resync's read, then the term's first Schedule's", n)
	}
}

// TestTermReadWaiterGivesUp: a call waiting for another's term read returns
// ErrNotReady when its own context ends; the read goes on for the others.
func TestTermReadWaiterGivesUp(t *testing.T) {
	c := zones3(t, 3)
	c.store.create("a", 2)
	c.store.create("b", 2)
	fresh := &gatedLister{store: c.store, release: make(chan struct{})}
	s := c.start(func(cfg *Config) { cfg.FreshLister = fresh.list })
	var first error
	var wg sync.WaitGroup
	wg.Go(func() { _, first = s.Schedule(quietCtx(), c.store.get("a")) })
	for n, _ := fresh.counts(); n == 0; n, _ = fresh.counts() {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(quietCtx())
	cancel()
	if _, err := s.Schedule(ctx, c.store.get("b")); !errors.Is(err, ErrNotReady) {
		t.Errorf("Schedule with its context done while the term is read = %v, want ErrNotReady", err)
	}
	close(fresh.release)
	wg.Wait()
	if n, _ := fresh.counts(); first != nil || n != 1 {
		t.Errorf("the reading call: Schedule() = %v after %d list(s), want nil after 1", first, n)
	}
}
