package memcluster

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Informer lag, per kind. Every watch the informers open on pods, nodes and
// the StatefulSet goes through a relay that always drains the fake
// tracker's channel (which panics when full) into a queue, and hands the
// queue to the informer in order unless the kind is held. A held kind's
// informer, its listers and its handlers stay where they were while the
// clientset moves on, as an informer whose watch is slow does.

// gate is one kind's hold. Guarded by Cluster.tmu.
type gate struct {
	held bool
	// budget is how many events may still pass while held (ReleaseN).
	budget int
	// queued counts the events relays hold for the kind.
	queued int
	// relayed is, per object, the version of the last event a relay took
	// from the tracker: throttling a held kind waits on it, as the fake
	// watch's channel overflows whatever the informer does.
	relayed map[string]version
	// changed is closed and replaced when held or budget changes.
	changed chan struct{}
}

// Hold holds back the watch events of the kind from the informers: writes
// made after Hold returns reach the clientset, and Get and List through
// Client see them, but no informer handler, lister or indexer does until
// Release. Sync stops waiting for the kind while it is held (it waits for
// the others as usual), and the kind's writes are not throttled. The
// informers' initial list is not held: hold after Start.
func (c *Cluster) Hold(k Kind) { c.setHeld(k, true) }

// Release hands every held event of the kind to the informers, in order,
// and stops holding it. Sync then waits for them again.
func (c *Cluster) Release(k Kind) { c.setHeld(k, false) }

// setHeld starts or ends a hold; either way no partial release is left.
func (c *Cluster) setHeld(k Kind, held bool) {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	g := &c.t.gates[k]
	g.held, g.budget = held, 0
	c.gateChangedLocked(k)
}

// ReleaseN lets the oldest n held events of the kind through and keeps
// holding the rest (and later ones), so an informer can be left at any
// point of the history, not only at the start of the hold. Sync does not
// wait for them: the kind is still held.
func (c *Cluster) ReleaseN(k Kind, n int) {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	g := &c.t.gates[k]
	if !g.held || n <= 0 {
		return
	}
	g.budget += n
	c.gateChangedLocked(k)
}

// Held reports whether the kind is held, and how many of its events are
// waiting to be handed to the informers.
func (c *Cluster) Held(k Kind) (bool, int) {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	return c.t.gates[k].held, c.t.gates[k].queued
}

func (c *Cluster) gateChangedLocked(k Kind) {
	g := &c.t.gates[k]
	if g.changed != nil {
		close(g.changed)
	}
	g.changed = make(chan struct{})
	c.broadcastLocked()
}

// relay is the watch handed to an informer.
type relay struct {
	inner watch.Interface
	c     *Cluster
	k     Kind
	out   chan watch.Event
	done  chan struct{}
	once  sync.Once
}

func newRelay(c *Cluster, k Kind, inner watch.Interface) *relay {
	r := &relay{inner: inner, c: c, k: k, out: make(chan watch.Event), done: make(chan struct{})}
	go r.run()
	return r
}

func (r *relay) ResultChan() <-chan watch.Event { return r.out }

// Stop ends the relay; the events it still queues are dropped, as a
// stopped watch's are.
func (r *relay) Stop() {
	r.once.Do(func() { close(r.done) })
	r.inner.Stop()
}

// may reports whether the relay may hand over an event now, and the
// channel that says when that may change.
func (r *relay) may() (bool, <-chan struct{}) {
	r.c.tmu.Lock()
	defer r.c.tmu.Unlock()
	g := &r.c.t.gates[r.k]
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return !g.held || g.budget > 0, g.changed
}

func (r *relay) count(delta int, sent bool) {
	r.c.tmu.Lock()
	defer r.c.tmu.Unlock()
	g := &r.c.t.gates[r.k]
	g.queued += delta
	if sent && g.held && g.budget > 0 {
		g.budget--
	}
}

// took records an event taken from the tracker, and wakes a throttled
// writer.
func (r *relay) took(ev watch.Event) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(ev.Object)
	m, ok := ev.Object.(metav1.Object)
	r.c.tmu.Lock()
	defer r.c.tmu.Unlock()
	g := &r.c.t.gates[r.k]
	g.queued++
	if err != nil || !ok {
		return
	}
	v := version{rv: m.GetResourceVersion(), present: true}
	if ev.Type == watch.Deleted {
		v = version{}
	}
	if g.relayed == nil {
		g.relayed = map[string]version{}
	}
	g.relayed[key] = v
	r.c.broadcastLocked()
}

func (r *relay) run() {
	defer close(r.out)
	var queue []watch.Event
	in := r.inner.ResultChan()
	defer func() { r.count(-len(queue), false) }()
	for in != nil || len(queue) > 0 {
		open, changed := r.may()
		var send chan<- watch.Event
		var next watch.Event
		if open && len(queue) > 0 {
			send, next = r.out, queue[0]
		}
		select {
		case ev, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			queue = append(queue, ev)
			r.took(ev)
		case send <- next:
			queue = queue[1:]
			r.count(-1, true)
		case <-changed:
		case <-r.done:
			return
		}
	}
}
