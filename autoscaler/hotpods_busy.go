package autoscaler

import "k8s.io/apimachinery/pkg/types"

// shedSources are the sources of the sheds in progress, those that end
// this cycle included. A source sheds off one pod at a time: its move
// quota (SetMoveQuota) is one for every pod it drains from, and the
// scheduler takes the moves off the draining pods in its own order (the
// last by name first), not off the pod that planned them; two sheds of
// one source would overwrite (and, ending, clear) each other's quota and
// move more off one pod than its plan and less off the other.
func (a *Autoscaler) shedSources() map[types.NamespacedName]bool {
	busy := map[types.NamespacedName]bool{}
	for _, h := range a.hot {
		if h.shed == nil {
			continue
		}
		for k := range h.shed.keep {
			busy[k] = true
		}
	}
	return busy
}
