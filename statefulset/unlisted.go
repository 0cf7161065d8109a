package statefulset

import (
	"context"
	"time"

	"github.com/vsched/vsched/state"
)

// confirmUnlisted settles the sources a resync kept although its list
// lacked them (res.Unconfirmed: the state knows them at a version newer than
// the list, as it knows every source when the list is empty). Lister may
// lag, or the sources' delete events were missed; only a list from the API
// server tells the two apart, so it reads one, outside the state lock, and
// forgets what that list lacks too. A missed delete then costs at most one
// resync period of room. It returns res with what the fresh list changed
// added; a failed list leaves the sources to the next resync.
func (s *Scheduler) confirmUnlisted(ctx context.Context, res state.ResyncResult, now time.Time) state.ResyncResult {
	s.st.Lock()
	mark := s.st.Seq()
	s.st.Unlock()
	vpods, err := s.cfg.FreshLister()
	if err != nil {
		s.logger(ctx).Warnw("vsched resync: listing sources from the API server failed; sources the lister lacks are kept until the next resync",
			"statefulset", s.key.String(), "unconfirmed", len(res.Unconfirmed), "error", err)
		return res
	}
	s.st.Lock()
	fresh := s.st.ResyncFresh(vpods, mark, now, s.cfg.ReservationTTL)
	s.st.Unlock()
	res.Forgotten = append(res.Forgotten, fresh.Forgotten...)
	res.Overridden = append(res.Overridden, fresh.Overridden...)
	res.Committed += fresh.Committed
	res.Unconfirmed = nil
	state.SortKeys(res.Forgotten)
	state.SortKeys(res.Overridden)
	return res
}
