package statefulset

import (
	"context"
	"fmt"
	"time"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// Resync reconciles the state with the lister: it picks up status writes
// missed, forgets deleted sources, and expires old reservations. A lister
// error changes nothing. It lists from Config.FreshLister, when set, where
// Lister could mislead it: as a term's first load (before the term's first
// Schedule), and when some reservation has outlived ReservationTTL.
func (s *Scheduler) Resync(ctx context.Context) error {
	if !s.cfg.ListerSynced() {
		// An unsynced lister lists nothing: taken for the truth it would
		// forget every source.
		return fmt.Errorf("%w: the sources' lister has not synced", vsched.ErrNotReady)
	}
	var ts *termStart
	if s.hasSynced() {
		// A resync before the term's first Schedule is the term's first
		// load, and reads what Schedule's would (readTermStart): from
		// its informers a new leader would miss the statuses and the
		// size the previous one wrote last.
		var err error
		if ts, err = s.readTermStart(ctx); err != nil {
			return err
		}
	}
	now := s.cfg.Clock.Now()
	vpods, mark, fresh, err := s.resyncList(ts, now)
	if err != nil {
		if ts != nil {
			s.endTermRead(nil) // unused: the next call reads afresh
		}
		s.logger(ctx).Warnw("vsched resync: listing sources failed; state kept as it is", "statefulset", s.key.String(), "error", err)
		return err
	}
	s.st.Lock()
	var res state.ResyncResult
	switch {
	case !s.loaded.Load() && ts != nil:
		// The term's first load resyncs from this very list; ts is the
		// term's shared read, not to change.
		own := *ts
		own.vpods, own.mark, own.listed = vpods, mark, true
		if res, err = s.loadTerm(ctx, &own); err != nil {
			s.st.Unlock()
			return err
		}
	case fresh:
		if !s.loaded.Load() {
			s.st.DropReservations() // as below
		}
		res = s.st.ResyncFresh(vpods, mark, now, s.cfg.ReservationTTL)
	case !s.loaded.Load():
		// Informers not synced yet: the sources are loaded, but the
		// term's first load (ensureLoaded) is still to come.
		s.st.DropReservations()
		fallthrough
	default:
		res = s.st.Resync(vpods, mark, now, s.cfg.ReservationTTL)
	}
	expired := s.st.ExpireReservations(now, s.cfg.ReservationTTL)
	s.st.Unlock()
	s.kickRestore() // a term's load may have found a scale-down from outside
	if len(res.Unconfirmed) > 0 && s.cfg.FreshLister != nil {
		res = s.confirmUnlisted(ctx, res, now)
	}
	log := s.logger(ctx)
	for _, k := range res.Overridden {
		log.Infow("vsched resync: source's status differs from the reservation; the status wins", "source", k.String())
	}
	if len(res.Forgotten)+len(expired) > 0 {
		log.Infow("vsched resync", "statefulset", s.key.String(), "forgotten", len(res.Forgotten), "expiredReservations", len(expired))
	}
	if len(res.Forgotten)+len(expired)+len(res.Overridden)+res.Committed > 0 {
		s.requeuePending()
	}
	return nil
}

// resyncList lists the sources for a resync, outside the state lock, with
// the state's Seq when it did: the term's fresh list when ts has one, else
// Lister, or FreshLister when a reservation is due to expire at now.
func (s *Scheduler) resyncList(ts *termStart, now time.Time) (vpods []vsched.VPod, mark uint64, fresh bool, err error) {
	if ts != nil && ts.listed {
		return ts.vpods, ts.mark, true, nil
	}
	// What is observed after this point is newer than the list: the
	// resync must not forget it (State.Resync).
	s.st.Lock()
	mark = s.st.Seq()
	lister := s.cfg.Lister
	if s.cfg.FreshLister != nil && s.st.ReservationsExpireBy(now, s.cfg.ReservationTTL) {
		// Expiring a reservation frees its room: only a list at least
		// as new as its status write, if there was one, may say there
		// was none. A lagging Lister may not show that write yet.
		lister, fresh = s.cfg.FreshLister, true
	}
	s.st.Unlock()
	vpods, err = lister()
	return vpods, mark, fresh, err
}

// Run resyncs every ResyncPeriod until ctx is done.
func (s *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(s.cfg.ResyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if s.leader.Load() {
				_ = s.Resync(ctx)
			}
		}
	}
}
