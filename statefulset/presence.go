package statefulset

import (
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// Log messages of the StatefulSet's presence, each with the field
// "statefulset".
const (
	// LogStatefulSetDeleted is logged when the scheduler's informer
	// reports the StatefulSet deleted: from then on Schedule answers
	// vsched.ErrStatefulSetMissing, and the autoscaler holds, until it is back.
	LogStatefulSetDeleted = "vsched StatefulSet deleted; decisions wait for it to come back"
	// LogStatefulSetBack is logged when it is back, with the fields
	// "replicas" (its spec.replicas) and "restoreTo": the size the sources
	// hold when it came back smaller (the autoscaler sizes it back, and
	// decisions wait until it has), 0 when decisions resume at once.
	LogStatefulSetBack = "vsched StatefulSet back"
)

// presence is what the scheduler knows of the StatefulSet's existence
// from its informer. A delete is not a scale to zero: the pods may still
// run (an orphaning delete), and the StatefulSet created again adopts them;
// taken as a size of 0, every placement would be moved, and with nowhere to
// go, dropped from the sources' statuses.
type presence struct {
	mu sync.Mutex
	// watched says an informer reports the StatefulSet; without one (a
	// scheduler fed by hand) it counts as present.
	watched bool
	// seen: an add or update was seen since the start or the last delete;
	// uid is the object's.
	seen bool
	uid  types.UID
	// deletedAt is when a delete was seen; zero when none was.
	deletedAt time.Time
	// back: it came back after a delete (or was first seen at generation
	// 1), with backWith replicas, not yet known to cover the pods its
	// sources hold; restore > 0: it does not, and is to be sized back to
	// restore.
	back              bool
	backWith, restore int32
	// last is the StatefulSet as the informer last showed it while back.
	last *appsv1.StatefulSet
}

// why says why the StatefulSet does not count as present, "" when it does.
func (p *presence) why(key types.NamespacedName) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case !p.watched:
		return ""
	case !p.seen && p.deletedAt.IsZero():
		return fmt.Sprintf("StatefulSet %s not found", key)
	case !p.seen:
		return fmt.Sprintf("StatefulSet %s was deleted at %s", key, p.deletedAt.UTC().Format(time.RFC3339))
	case p.restore > 0:
		return fmt.Sprintf("StatefulSet %s was created again with %d replica(s), below the %d pod(s) its sources hold; waiting for it to be sized back to %d",
			key, p.backWith, p.restore, p.restore)
	}
	return ""
}

// arrive records an add or update of the StatefulSet seen at now. held is
// the pods its sources hold, known when loaded. It reports whether the
// scheduler takes the size (not while the StatefulSet is back below held),
// and whether it came back just now.
func (p *presence) arrive(set *appsv1.StatefulSet, held int32, loaded bool, now time.Time) (take, back bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watched = true
	if p.seen && set.UID != "" && p.uid != "" && set.UID != p.uid {
		// A new object under the same name, whose delete the informer
		// never delivered (a relist after its watch broke).
		p.seen, p.deletedAt = false, now
	}
	switch {
	case !p.seen:
		p.seen, p.uid = true, set.UID
		back = !p.deletedAt.IsZero()
		if !back && set.Generation != 1 {
			return true, false
		}
		// Back after a delete, or seen first at generation 1: never
		// resized since it was created, perhaps again while this
		// process was not running (an upgrade that restarts the
		// controller too). Either way its size is measured against what
		// the sources hold before it is taken.
		p.back = true
	case !p.back:
		return true, false
	}
	p.backWith, p.last = specReplicas(set), set
	if !loaded {
		// What the sources hold is not known yet: the size is taken as
		// it is, and the term's load compares (settle) before any
		// decision.
		return true, back
	}
	p.compareLocked(held)
	return p.restore == 0, back
}

// compareLocked ends the wait of a StatefulSet back with as many replicas
// as the pods its sources hold (held), or sets the size to restore.
func (p *presence) compareLocked(held int32) {
	switch {
	case !p.back:
	case p.backWith >= held:
		p.back, p.restore, p.last = false, 0, nil
	default:
		p.restore = held
	}
}

// settle compares, once the term's sources are loaded, a StatefulSet that
// came back before with what they hold. fresh, when not nil, is the
// StatefulSet as the API server holds it, newer than the informer's: a
// generation past 1 there, with no delete seen and the UID the informer
// shows, means it was resized since it was created, and the informer lags. It returns the StatefulSet whose
// size the scheduler takes now (fresh, else the informer's last), nil while
// it waits to be sized back.
func (p *presence) settle(held int32, fresh *appsv1.StatefulSet) *appsv1.StatefulSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	set := fresh
	if set == nil {
		set = p.last
	}
	if set != nil {
		if p.deletedAt.IsZero() && set.Generation != 1 && (p.uid == "" || set.UID == p.uid) {
			// The object this process knows, resized since created.
			p.back = false
		}
		p.backWith = specReplicas(set)
	}
	p.compareLocked(held)
	if p.restore > 0 {
		return nil
	}
	p.last = nil
	return set
}

// isBack reports whether the StatefulSet came back and is not yet known
// to cover the pods its sources hold. fresh, when not nil, is the term's
// read from the API server, which may show it back (a new UID, or
// generation 1) before the informer delivers the delete.
func (p *presence) isBack(fresh *appsv1.StatefulSet) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fresh != nil && !p.back && (fresh.Generation == 1 || (p.uid != "" && fresh.UID != p.uid)) {
		p.back, p.backWith = true, specReplicas(fresh)
	}
	return p.back
}

// gone records the StatefulSet's delete, seen at now.
func (p *presence) gone(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watched = true
	p.seen, p.deletedAt, p.back, p.restore, p.last = false, now, false, 0, nil
}

// restoreSize is the size the StatefulSet must be sized back to, when it
// came back smaller than the pods its sources hold.
func (p *presence) restoreSize() (int32, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restore, p.restore > 0
}

// grown records a size written: at least the size to restore ends the
// wait, when known says the caller records it (a write that found a larger
// size has no version to record; the informer, or the next restore's
// read, ends the wait with that size). It reports whether it did, with the
// StatefulSet as the informer last showed it meanwhile (nil when it showed
// nothing), whose size was not taken while the wait lasted.
func (p *presence) grown(to int32, known bool) (bool, *appsv1.StatefulSet) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.restore > 0 && to >= p.restore && known {
		last := p.last
		p.back, p.restore, p.last = false, 0, nil
		return true, last
	}
	return false, nil
}

// specReplicas is spec.replicas, 1 when unset (the API server's default).
func specReplicas(set *appsv1.StatefulSet) int32 {
	if set.Spec.Replicas != nil {
		return *set.Spec.Replicas
	}
	return 1
}

// RestoreSize is the size the StatefulSet must be sized back to, when it was
// created again (under the same name, as an upgrade does) with fewer
// replicas than the pods its sources hold, or scaled below them from
// outside (outside.go): ok is false otherwise. Until a
// size at least that large is seen or written (Grown), Schedule answers
// vsched.ErrStatefulSetMissing and keeps every placement; the autoscaler writes
// it. Without an autoscaler, scale the StatefulSet by hand to at least that
// size.
//
// For vsched's own autoscaler and evictor; not promised (docs/versioning.md).
func (s *Scheduler) RestoreSize() (int32, bool) {
	if to, ok := s.presence.restoreSize(); ok {
		return to, ok
	}
	return s.outside.restoreSize() // outside.go
}

// StatefulSetMissing says why the StatefulSet counts as missing (not found,
// deleted, or back, or scaled from outside, smaller than the pods its
// sources hold), "" when it is
// present: what a readiness probe or a source's condition reports. Until
// the informers have synced it is "": nothing is known yet (NotReady says
// so).
func (s *Scheduler) StatefulSetMissing() string {
	if !s.hasSynced() {
		return ""
	}
	if why := s.presence.why(s.key); why != "" {
		return why
	}
	return s.outside.why(s.key) // outside.go
}

// missingErr is the error of a call that cannot decide while the
// StatefulSet is missing, nil when it is present.
func (s *Scheduler) missingErr() error {
	if why := s.StatefulSetMissing(); why != "" {
		return &vsched.MissingError{StatefulSet: s.key, Why: why}
	}
	return nil
}
