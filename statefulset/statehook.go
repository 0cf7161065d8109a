package statefulset

import (
	"github.com/vsched/vsched/internal/statehook"
	"github.com/vsched/vsched/state"
)

// The module's tests of other packages reach the state through
// internal/statehook only; see its doc.
func init() {
	statehook.WithState = func(s any, f func(*state.State)) {
		sc := s.(*Scheduler)
		sc.st.Lock()
		defer sc.st.Unlock()
		f(sc.st)
	}
}
