package autoscaler

import (
	"sync"
	"testing"
)

// TestLagWorldGoneChecksRunConcurrently: a batch's workers check their
// writes concurrently (checkMove reads the size through specReplicas), and
// while the StatefulSet counts as gone the first check that finds no
// source beyond spec.replicas ends the spell. The race soak (make soak
// SOAK_RACE=-race) caught two workers doing that unguarded at seed 165.
func TestLagWorldGoneChecksRunConcurrently(t *testing.T) {
	w := newLagWorld(t, 1)
	for round := 0; round < 10; round++ {
		w.setGone(lagGone{active: true, size: 7})
		var wg sync.WaitGroup
		sizes := make([]int32, 4)
		for i := range sizes {
			wg.Go(func() { sizes[i] = w.specReplicas() })
		}
		wg.Wait()
		// No source holds a pod: the StatefulSet's own size, 4, holds.
		for i, n := range sizes {
			if n != 4 {
				t.Fatalf("round %d: worker %d read size %d, want 4", round, i, n)
			}
		}
		if n, ok := w.goneReplicas(); ok || n != 0 {
			t.Fatalf("round %d: still gone (%d) after every check found nothing beyond spec.replicas", round, n)
		}
	}
}

// setGone replaces the gone spell.
func (w *lagWorld) setGone(g lagGone) {
	w.goneMu.Lock()
	defer w.goneMu.Unlock()
	w.gone = g
}

// goneSize is the size the StatefulSet had when it was deleted.
func (w *lagWorld) goneSize() int32 {
	w.goneMu.Lock()
	defer w.goneMu.Unlock()
	return w.gone.size
}
