package autoscaler

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/state"
)

// forgetGone forgets the estimates of the sources fed to them that the
// cycle's state no longer holds: deleted. The scheduler's Forget drops an
// estimate at once; this catches a deletion only a resync saw, and keeps
// fed as many as the sources.
func (a *Autoscaler) forgetGone(c *cycle) {
	if a.estimates == nil || len(a.fed) == 0 {
		return
	}
	var gone []types.NamespacedName
	for key := range a.fed {
		if _, ok := c.base.Placements(key); !ok {
			gone = append(gone, key)
		}
	}
	if len(gone) == 0 {
		return
	}
	slices.SortFunc(gone, state.CompareKeys)
	for _, key := range gone {
		delete(a.fed, key)
	}
	a.estimates.Forget(gone...)
	c.log.Debugw("vsched autoscaler: forgot the measured costs of deleted sources", "sources", len(gone))
}

// noteFed remembers a source fed to the estimates.
func (a *Autoscaler) noteFed(key types.NamespacedName) {
	if a.fed == nil {
		a.fed = map[types.NamespacedName]bool{}
	}
	a.fed[key] = true
}
