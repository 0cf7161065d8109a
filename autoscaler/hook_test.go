package autoscaler

import (
	"github.com/vsched/vsched/internal/statehook"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/state"
)

// inTree is the in-tree registry with vsched's default policy, which the
// tests build their profiles with. Nothing changes it.
var inTree = plugins.MustInTreeRegistry()

// withState runs f with s's state locked, for tests that arrange what no
// public method reaches (see internal/statehook).
func withState(s any, f func(*state.State)) { statehook.WithState(s, f) }
