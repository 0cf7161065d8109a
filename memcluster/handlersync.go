package memcluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// A registration's HasSynced turns true only after its handler has
// returned from the last object of the initial list, a step after the
// tracked handler recorded that object; a caller that asks the
// registration right after Sync (as a scheduler's readiness does) can
// land in between when the machine is loaded. Nothing is signalled when
// it turns true, so this polls, as WaitFor does; it is true at once in all
// but that window.

// waitHandlersSynced waits until every tracked registration reports that
// its handler has seen the initial list, and fails naming the kinds whose
// handlers have not when ctx ends.
func (c *Cluster) waitHandlersSynced(ctx context.Context) error {
	err := wait.PollUntilContextCancel(ctx, time.Millisecond, true, func(context.Context) (bool, error) {
		return c.unsyncedHandlers() == "", nil
	})
	if err != nil {
		return fmt.Errorf("memcluster: handlers have not seen the initial list: %w (waiting for %s)", err, c.unsyncedHandlers())
	}
	return nil
}

// unsyncedHandlers names the kinds with a registration whose HasSynced is
// false, "" when there is none. HasSynced takes the informer's locks, so
// it is asked outside tmu.
func (c *Cluster) unsyncedHandlers() string {
	c.tmu.Lock()
	regs := make([]registration, 0, len(c.t.regs))
	for reg, l := range c.t.regs {
		regs = append(regs, registration{reg.HasSynced, l.kind})
	}
	c.tmu.Unlock()
	var n [numKinds]int
	for _, r := range regs {
		if !r.hasSynced() {
			n[r.kind]++
		}
	}
	var parts []string
	for k := range numKinds {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d handler(s)", Kind(k), n[k]))
		}
	}
	return strings.Join(parts, "; ")
}

type registration struct {
	hasSynced func() bool
	kind      Kind
}
