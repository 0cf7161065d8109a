package statefulset

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// termStart is what a leadership term's first load reads from the API
// server, outside the state lock: informer caches may lag behind what the
// previous leader wrote just before it lost the lease (a shrink, the last
// status writes), and a term that started from them could place on pods
// being removed or into room already given away.
type termStart struct {
	// set is the StatefulSet as the API server holds it; nil when no
	// reader is wired (no autoscaler).
	set *appsv1.StatefulSet
	// vpods, when listed, is Config.FreshLister's list, taken when the
	// state's Seq was mark.
	vpods  []vsched.VPod
	listed bool
	mark   uint64
}

// termRead is a term's first read (readTermStart), shared by every call
// that needs it before the term is loaded: a restarted controller's workers
// all call Schedule at the term's start, and each listing every source on
// its own held as many copies of the list at once (issue 15: a restarted
// controller peaked well above the first one). Once done is closed, ts is
// read-only: every sharer may hold it.
type termRead struct {
	done chan struct{} // closed once ts and err are set
	ts   *termStart
	err  error
	// waiters counts the calls waiting for this read now.
	waiters int
}

// termReadTimeout bounds a term's read: it runs for every call that waits
// for it, on no caller's context, and must still end.
const termReadTimeout = time.Minute

// readTermStart reads what a term's first load needs fresh; nil when the
// state is loaded already. Calls made while a read is in flight, or read
// but not loaded yet, share it; the load lets it go (endTermRead), so no
// list outlives the load. The read runs apart from every call, on ctx's
// values but not its end: a call whose context ends gives up waiting, and
// the read goes on for the others.
func (s *Scheduler) readTermStart(ctx context.Context) (*termStart, error) {
	if s.loaded.Load() {
		return nil, nil
	}
	s.termMu.Lock()
	r := s.term
	if r == nil {
		r = &termRead{done: make(chan struct{})}
		s.term = r
		go s.readTerm(context.WithoutCancel(ctx), r)
	}
	r.waiters++
	s.termMu.Unlock()
	defer func() {
		s.termMu.Lock()
		r.waiters--
		s.termMu.Unlock()
	}()
	select {
	case <-r.done:
		return r.ts, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: waiting for the term's first read: %v", vsched.ErrNotReady, ctx.Err())
	}
}

// readTerm makes the read r, within termReadTimeout.
func (s *Scheduler) readTerm(ctx context.Context, r *termRead) {
	ctx, cancel := context.WithTimeout(ctx, termReadTimeout)
	defer cancel()
	r.ts, r.err = s.readFresh(ctx)
	if r.err != nil {
		s.endTermRead(r) // the next call reads again
	}
	close(r.done)
}

// endTermRead forgets the term's read r, or whichever there is when r is
// nil: the load took it, it failed, or the term ended.
func (s *Scheduler) endTermRead(r *termRead) {
	s.termMu.Lock()
	defer s.termMu.Unlock()
	if r == nil || s.term == r {
		s.term = nil
	}
}

// readFresh is readTermStart's read.
func (s *Scheduler) readFresh(ctx context.Context) (*termStart, error) {
	ts := &termStart{}
	if f := s.readSet.Load(); f != nil {
		set, err := (*f)(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: reading the StatefulSet: %v", vsched.ErrNotReady, err)
		}
		ts.set = set
	}
	if s.cfg.FreshLister != nil {
		s.st.Lock()
		ts.mark = s.st.Seq()
		s.st.Unlock()
		vpods, err := s.cfg.FreshLister()
		if err != nil {
			return nil, fmt.Errorf("%w: listing sources: %v", vsched.ErrNotReady, err)
		}
		ts.vpods, ts.listed = vpods, true
	}
	return ts, nil
}

// ensureLoaded reads every source's committed placements once per
// leadership, so no decision is made against a partial picture, taking
// what ts read fresh (it may be nil). Called with the state locked.
func (s *Scheduler) ensureLoaded(ctx context.Context, ts *termStart) error {
	if s.loaded.Load() {
		return nil
	}
	_, err := s.loadTerm(ctx, ts)
	return err
}

// loadTerm is a term's first load (see ensureLoaded); it returns what the
// resync of the term's list changed. Called with the state locked.
func (s *Scheduler) loadTerm(ctx context.Context, ts *termStart) (state.ResyncResult, error) {
	// Loaded or not, the term's read is spent: a later call reads again.
	defer s.endTermRead(nil)
	if why := s.NotReady(); why != "" {
		if err := s.missingErr(); err != nil && s.hasSynced() {
			return state.ResyncResult{}, err
		}
		return state.ResyncResult{}, fmt.Errorf("%w: %s", vsched.ErrNotReady, why)
	}
	var t termStart
	if ts != nil {
		t = *ts // shared with the term's other calls: not to change
	}
	if !t.listed {
		vpods, err := s.cfg.Lister()
		if err != nil {
			return state.ResyncResult{}, fmt.Errorf("%w: listing sources: %v", vsched.ErrNotReady, err)
		}
		t.vpods, t.mark = vpods, s.st.Seq()
	}
	// A StatefulSet that came back since it was deleted is measured
	// against what the sources hold, known only once they are loaded.
	back := s.presence.isBack(t.set)
	if t.set != nil && !back {
		// Sources left above a shrink are moved by their next Schedule;
		// a promotion enqueues every source anyway.
		s.observeSize(t.set)
	}
	// A new term starts from what the sources show: a reservation left by
	// an earlier term of this replica may stand for a write that failed,
	// while another leader has since given its room away.
	dropped := s.st.DropReservations()
	resync := s.st.Resync
	if t.listed {
		// FreshLister's list: what it lacks is gone, whatever version
		// the state knew it at (a delete missed before this term).
		resync = s.st.ResyncFresh
	}
	res := resync(t.vpods, t.mark, s.cfg.Clock.Now(), s.cfg.ReservationTTL)
	if back {
		if set := s.presence.settle(s.st.HighestUsedOrdinal()+1, t.set); set != nil {
			s.observeSize(set)
		}
	}
	if _, recreated := s.presence.restoreSize(); !recreated {
		s.outsideAtLoad()
	}
	s.loaded.Store(true)
	s.logger(ctx).Infow("vsched state loaded", "statefulset", s.key.String(), "sources", len(t.vpods),
		"fresh", t.listed, "replicas", s.st.Replicas(), "forgotten", len(res.Forgotten), "droppedReservations", dropped)
	return res, nil
}
