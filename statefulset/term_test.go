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
	copies []weak.Pointer[vsched.PlainVPod]
}

func (g *gatedLister) list() ([]vsched.VPod, error) {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	<-g.release
	vpods, err := g.store.List()
	if err != nil {
		return nil, err
	}
	out := make([]vsched.VPod, len(vpods))
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, v := range vpods {
		cp := *v.(*vsched.PlainVPod)
		cp.Placements = append([]vsched.Placement(nil), cp.Placements...)
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
		if calls == workers || calls == 1 && s.termWaiters() == termJoined(workers) {
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
		return c.Client().AppsV1().StatefulSets(testNS).Get(ctx, testSet, metav1.GetOptions{})
	})
	c.store.FailList(errors.New("lister down"))
	if err := s.Resync(quietCtx()); err == nil {
		t.Fatal("Resync() with the lister down = nil, want its error")
	}
	c.store.FailList(nil)
	scheduleOK(t, s, c, "a")
	if n := reads.Load(); n != 2 {
		t.Errorf("the StatefulSet was read %d times, want 2: the failed resync's read, then the term's first Schedule's", n)
	}
}

// TestTermReadWaiterGivesUp: a call waiting for another's term read returns
// vsched.ErrNotReady when its own context ends; the read goes on for the others.
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
	// A waiter that no longer gave up would wait for the release below:
	// fail rather than hang.
	gaveUp := make(chan error, 1)
	go func() {
		_, err := s.Schedule(ctx, c.store.get("b"))
		gaveUp <- err
	}()
	select {
	case err := <-gaveUp:
		if !errors.Is(err, vsched.ErrNotReady) {
			t.Errorf("Schedule with its context done while the term is read = %v, want ErrNotReady", err)
		}
	case <-time.After(time.Minute):
		close(fresh.release)
		t.Fatal("Schedule with its context done while the term is read still waits after a minute")
	}
	if n := s.termWaiters(); n != termJoined(1) {
		t.Errorf("after one call gave up, %d call(s) wait for the term's read, want %d", n, termJoined(1))
	}
	close(fresh.release)
	wg.Wait()
	if n, _ := fresh.counts(); first != nil || n != 1 {
		t.Errorf("the reading call: Schedule() = %v after %d list(s), want nil after 1", first, n)
	}
}

// gatedSetReader is a StatefulSet reader that holds every read until
// released or until the read's context ends, as a client's Get does.
type gatedSetReader struct {
	c       *kubeCluster
	release chan struct{}
	reads   atomic.Int32
}

func (g *gatedSetReader) read(ctx context.Context) (*appsv1.StatefulSet, error) {
	g.reads.Add(1)
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.c.Client().AppsV1().StatefulSets(testNS).Get(ctx, testSet, metav1.GetOptions{})
}

// waitForTermRead waits until the StatefulSet is being read once and n
// calls wait for that read.
func waitForTermRead(t *testing.T, s *Scheduler, g *gatedSetReader, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for g.reads.Load() != 1 || s.termWaiters() != n {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute, %d read(s) and %d call(s) waiting; want 1 read and %d waiting", g.reads.Load(), s.termWaiters(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestTermReadOutlivesTheFirstCaller: the call that started the term's
// read can give up on its own context, and that context is not the read's:
// another call still gets the term loaded.
func TestTermReadOutlivesTheFirstCaller(t *testing.T) {
	c := zones3(t, 3)
	c.store.create("a", 2)
	c.store.create("b", 2)
	s := c.start()
	g := &gatedSetReader{c: c, release: make(chan struct{})}
	s.SetStatefulSetReader(g.read)

	ctx, cancel := context.WithCancel(quietCtx())
	firstDone := make(chan error, 1)
	go func() {
		_, err := s.Schedule(ctx, c.store.get("a"))
		firstDone <- err
	}()
	for g.reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	var second error
	var wg sync.WaitGroup
	wg.Go(func() { _, second = s.Schedule(quietCtx(), c.store.get("b")) })
	waitForTermRead(t, s, g, termJoined(2))
	cancel()
	select {
	case err := <-firstDone:
		if !errors.Is(err, vsched.ErrNotReady) {
			t.Errorf("the first call, its context cancelled during the read: Schedule() = %v, want ErrNotReady", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the first call did not give up within a minute of its context's end")
	}
	close(g.release)
	wg.Wait()
	if second != nil {
		t.Errorf("the second call, its context live: Schedule() = %v, want nil", second)
	}
	if n := g.reads.Load(); n != 1 {
		t.Errorf("the StatefulSet was read %d times, want once", n)
	}
}

// TestTermReadSharedByConcurrentResyncs: Resync is exported, so the
// periodic one and an embedder's can start a term together, with a
// Schedule; they share the term's read, which none of them changes (run it
// with -race), and each resyncs from a list of its own.
func TestTermReadSharedByConcurrentResyncs(t *testing.T) {
	c := zones3(t, 3)
	c.store.create("a", 2)
	c.store.writeStatus("a", placements(1, 2))
	s := c.start()
	g := &gatedSetReader{c: c, release: make(chan struct{})}
	s.SetStatefulSetReader(g.read)

	errs := make([]error, 3)
	var got []vsched.Placement
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = s.Resync(quietCtx()) })
	for g.reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	wg.Go(func() { errs[1] = s.Resync(quietCtx()) })
	wg.Go(func() { got, errs[2] = s.Schedule(quietCtx(), c.store.get("a")) })
	waitForTermRead(t, s, g, termJoined(3))
	close(g.release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d = %v, want nil", i, err)
		}
	}
	for j := range got {
		got[j].ZoneName, got[j].NodeName = "", ""
	}
	if diff := cmp.Diff(placements(1, 2), got); diff != "" {
		t.Errorf("a moved (-committed +decided):\n%s", diff)
	}
}

// termJoined is termWaiters' count once n calls share a term's read: each
// waits for it, the one that started it included.
func termJoined(n int) int { return n }
