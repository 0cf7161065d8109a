package statefulset

import (
	"context"

	"github.com/vsched/vsched/state"
)

// CloneLoaded returns a copy of the state for what-if simulation, after the
// leadership term's first load if it has not happened yet (the same load
// Schedule would make). The copy is the caller's: changing it changes
// nothing in the scheduler.
func (s *Scheduler) CloneLoaded(ctx context.Context) (*state.State, error) {
	ts, err := s.readTermStart(ctx)
	if err != nil {
		return nil, err
	}
	s.st.Lock()
	defer s.st.Unlock()
	if err := s.ensureLoaded(ctx, ts); err != nil {
		return nil, err
	}
	return s.st.Clone(), nil
}
