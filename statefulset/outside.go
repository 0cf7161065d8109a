package statefulset

import (
	"fmt"
	"sync"
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Log messages of a scale-down from outside, each with the field
// "statefulset".
const (
	// LogScaledDownFromOutside is logged when the scheduler sees the
	// StatefulSet scaled below the pods its sources hold by a write vsched
	// did not make, with the fields "replicas" (its spec.replicas) and
	// "restoreTo" (the pods the sources hold): decisions wait until it is
	// sized back, and the autoscaler sizes it back.
	LogScaledDownFromOutside = "vsched StatefulSet scaled down from outside below the pods its sources hold; decisions wait for it to be sized back"
	// LogSizedBack is logged when that wait ends, with the field
	// "replicas": the size seen or written that covers those pods.
	LogSizedBack = "vsched StatefulSet sized back after a scale-down from outside"
)

// A scale-down from outside is a spec.replicas that leaves vreplicas placed
// on ordinals at or above it, written by anyone but vsched: an apply of the
// sample's manifest (replicas: 0) in place over a running install, kubectl
// scale, a GitOps sync. vsched's own scale-downs never leave one: a shrink
// is fenced (FenceShrink) only once nothing is held at or above its size,
// and nothing is placed there until the informer confirms it; an informer
// event older than the size last taken (the autoscaler's own earlier
// write, seen late) is stale and ignored before this rule is asked. So
// "below the pods the sources hold, from an event not stale" is the whole
// rule: it needs no memory of the writes, and a new leader or a restarted
// controller applies it at its term's first load as well.
//
// Taken as the size, such a write would move every stranded vreplica (and
// drop what finds no room) only for the autoscaler to grow the StatefulSet
// again; it is treated as a StatefulSet created again below those pods
// (presence.go): the size is not taken, decisions wait, and the autoscaler
// writes back the pods the sources hold, ahead of every limit. The rule
// holds only while an autoscaler sizes the StatefulSet (it installs
// SetStatefulSetReader): without one, spec.replicas is whoever sets it, and
// a scale-down is taken as it is (the sources above it move).

// outsideScaleDown is the wait for a StatefulSet scaled down from outside
// to be sized back. Its lock is taken after the state's when both are.
type outsideScaleDown struct {
	mu sync.Mutex
	// restore > 0: the StatefulSet was scaled to to replicas from outside,
	// below the restore pods its sources hold, and decisions wait until a
	// size of at least restore is seen or written.
	restore, to int32
	// kick: the wait began and the restorer (the pending hook) is yet to
	// be told, outside the state's lock.
	kick atomic.Bool
}

// wait starts or goes on waiting for the size restore after a scale-down
// to to; it reports whether the wait began just now.
func (o *outsideScaleDown) wait(to, restore int32) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	began := o.restore == 0
	o.restore, o.to = restore, to
	if began {
		o.kick.Store(true)
	}
	return began
}

// end ends the wait; it reports whether there was one.
func (o *outsideScaleDown) end() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	was := o.restore > 0
	o.restore, o.to = 0, 0
	return was
}

// grown ends the wait when to, a size written, covers it.
func (o *outsideScaleDown) grown(to int32) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.restore == 0 || to < o.restore {
		return false
	}
	o.restore, o.to = 0, 0
	return true
}

// restoreSize is the size to write back, ok while waiting.
func (o *outsideScaleDown) restoreSize() (int32, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.restore, o.restore > 0
}

// why says why decisions wait, "" when they do not.
func (o *outsideScaleDown) why(key types.NamespacedName) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.restore == 0 {
		return ""
	}
	return fmt.Sprintf("StatefulSet %s was scaled to %d replica(s) from outside vsched, below the %d pod(s) its sources hold; waiting for it to be sized back to %d",
		key, o.to, o.restore, o.restore)
}

// restoresOutsideScaleDowns reports whether an autoscaler sizes the
// StatefulSet, and so whether a scale-down from outside is sized back.
func (s *Scheduler) restoresOutsideScaleDowns() bool { return s.readSet.Load() != nil }

// outsideEvent decides whether the scheduler takes the size of set, an
// informer event the presence takes: not while it leaves vreplicas
// stranded. An event older than the size last taken says nothing new (the
// state ignores it), and one seen before the term's load is taken as it is:
// the load compares (outsideAtLoad). Called with the state locked.
func (s *Scheduler) outsideEvent(set *appsv1.StatefulSet) bool {
	if !s.restoresOutsideScaleDowns() || !s.loaded.Load() {
		s.outside.end()
		return true
	}
	if s.st.StaleReplicas(set.ResourceVersion) {
		return true
	}
	return s.compareOutside(specReplicas(set))
}

// compareOutside waits for the StatefulSet to be sized back when n, its
// size, is below the pods the sources hold, and ends the wait otherwise.
// It reports whether n is to be taken. Called with the state locked.
func (s *Scheduler) compareOutside(n int32) bool {
	held := s.st.HeldReplicas() // also above the ordinals tracked yet
	if n >= held {
		if s.outside.end() {
			s.seen.logger().Infow(LogSizedBack, "replicas", n)
		}
		return true
	}
	if s.outside.wait(n, held) {
		s.seen.logger().Infow(LogScaledDownFromOutside, "replicas", n, "restoreTo", held)
	}
	return false
}

// outsideAtLoad compares, at a term's first load, the size the state took
// (from the term's read of the API server, else the informer) with the
// pods the loaded sources hold: a new leader, or a controller started
// after the StatefulSet was scaled down while none ran, sees the scale-down
// only there. Called with the state locked, the sources loaded.
func (s *Scheduler) outsideAtLoad() {
	if !s.restoresOutsideScaleDowns() {
		s.outside.end()
		return
	}
	s.compareOutside(s.st.ObservedReplicas())
}

// kickRestore calls the pending hook (the autoscaler's Trigger) once after
// a wait began, so that the size is written back within the autoscaler's
// MinTriggerInterval rather than at its next refresh. Called outside the
// state's lock.
func (s *Scheduler) kickRestore() {
	if !s.outside.kick.Swap(false) {
		return
	}
	if h := s.pendingHook.Load(); h != nil {
		(*h)()
	}
}

// ScaledDownFromOutside reports whether the size RestoreSize asks for
// follows a scale-down vsched did not make (the StatefulSet kept, scaled
// below the pods its sources hold) rather than a StatefulSet created again.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) ScaledDownFromOutside() bool {
	if _, recreated := s.presence.restoreSize(); recreated {
		return false
	}
	_, ok := s.outside.restoreSize()
	return ok
}
