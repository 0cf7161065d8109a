package statefulset

import (
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/state"
)

// withState runs f with the scheduler's live state locked: white-box tests
// read it, and a few set it up, directly. Other packages get
// Scheduler.Snapshot.
func (s *Scheduler) withState(f func(*state.State)) {
	s.st.Lock()
	defer s.st.Unlock()
	f(s.st)
}

// inTree is the in-tree registry with vsched's default policy, which the
// tests build their profiles with. Nothing changes it.
var inTree = plugins.MustInTreeRegistry()
