package memcluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/apps"
	appsv1informers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// kind is a resource the cluster writes and Sync tracks.
type Kind int

const (
	KindPod Kind = iota
	KindNode
	KindStatefulSet
	numKinds
)

var kindNames = [numKinds]string{"pods", "nodes", "statefulsets"}

func (k Kind) String() string { return kindNames[k] }

func kindOf(resource string) (Kind, bool) {
	for k, n := range kindNames {
		if n == resource {
			return Kind(k), true
		}
	}
	return 0, false
}

// version is an object's state as written or as a handler last saw it. The
// zero value means absent, so a handler that never saw an object agrees
// with a deletion.
type version struct {
	rv      string
	present bool
}

// listener is one event handler registered through the cluster's factory.
type listener struct {
	kind Kind
	seen map[string]version
}

// tracking is what Sync compares. Guarded by Cluster.tmu.
type tracking struct {
	expected [numKinds]map[string]version
	// dirty holds keys whose latest write some listener may not have seen
	// yet; Sync checks only these, so it costs what changed, not what
	// exists.
	dirty     [numKinds]map[string]struct{}
	listeners [numKinds]map[*listener]struct{}
	regs      map[cache.ResourceEventHandlerRegistration]*listener
	// own is the cluster's own listener per kind, registered before the
	// informers start: its having seen a write proves the informer's
	// indexer holds it.
	own      [numKinds]*listener
	lastKey  [numKinds]string
	unsynced [numKinds]int
	watches  [numKinds]int
	gates    [numKinds]gate
	// changed is closed and replaced whenever a listener records an event
	// or a watch starts or stops, waking every waiter.
	changed chan struct{}
}

func newTracking() tracking {
	t := tracking{regs: map[cache.ResourceEventHandlerRegistration]*listener{}, changed: make(chan struct{})}
	for k := range numKinds {
		t.expected[k] = map[string]version{}
		t.dirty[k] = map[string]struct{}{}
		t.listeners[k] = map[*listener]struct{}{}
	}
	return t
}

// broadcastLocked wakes every waiter. Called with tmu held.
func (c *Cluster) broadcastLocked() {
	close(c.t.changed)
	c.t.changed = make(chan struct{})
}

// recordWrite notes the latest version written of an object.
func (c *Cluster) recordWrite(k Kind, key string, v version) {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	c.t.expected[k][key] = v
	c.t.dirty[k][key] = struct{}{}
	c.t.lastKey[k] = key
	c.t.unsynced[k]++
}

func (c *Cluster) saw(l *listener, obj any, deleted bool) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	v := version{}
	if !deleted {
		m, ok := obj.(metav1.Object)
		if !ok {
			return
		}
		v = version{rv: m.GetResourceVersion(), present: true}
	}
	c.tmu.Lock()
	l.seen[key] = v
	c.broadcastLocked()
	c.tmu.Unlock()
}

func (c *Cluster) addListener(k Kind) *listener {
	l := &listener{kind: k, seen: map[string]version{}}
	c.tmu.Lock()
	defer c.tmu.Unlock()
	c.t.listeners[k][l] = struct{}{}
	// A new handler receives every existing object asynchronously; until
	// it has, the cluster is not in sync for it.
	for key := range c.t.expected[k] {
		c.t.dirty[k][key] = struct{}{}
	}
	return l
}

func (c *Cluster) removeListener(l *listener) {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	delete(c.t.listeners[l.kind], l)
	c.broadcastLocked()
}

// syncedLocked drops from dirty every key all listeners agree on, and
// reports whether none is left.
func (c *Cluster) syncedLocked() bool {
	done := true
	for k := range numKinds {
		if c.t.gates[k].held {
			continue
		}
		for key := range c.t.dirty[k] {
			want := c.t.expected[k][key]
			agreed := true
			for l := range c.t.listeners[k] {
				if l.seen[key] != want {
					agreed = false
					break
				}
			}
			if agreed {
				delete(c.t.dirty[k], key)
			} else {
				done = false
			}
		}
	}
	return done
}

// lagLocked describes what Sync is still waiting for, for its error.
func (c *Cluster) lagLocked() string {
	var parts []string
	for k := range numKinds {
		keys := make([]string, 0, len(c.t.dirty[k]))
		for key := range c.t.dirty[k] {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		if len(keys) > 5 {
			keys = append(keys[:5], fmt.Sprintf("and %d more", len(keys)-5))
		}
		if len(keys) > 0 {
			parts = append(parts, k.String()+": "+strings.Join(keys, ", "))
		}
		if c.t.watches[k] == 0 {
			parts = append(parts, k.String()+": no watch is running (was Start called?)")
		}
		if g := c.t.gates[k]; g.held {
			parts = append(parts, fmt.Sprintf("%s: held (%d events; Sync does not wait for them)", k, g.queued))
		}
	}
	return strings.Join(parts, "; ")
}

// wait blocks until cond, called with tmu held, holds or ctx ends.
func (c *Cluster) wait(ctx context.Context, cond func() bool) error {
	c.tmu.Lock()
	for !cond() {
		ch := c.t.changed
		c.tmu.Unlock()
		select {
		case <-ctx.Done():
			c.tmu.Lock()
			lag := c.lagLocked()
			c.tmu.Unlock()
			return fmt.Errorf("memcluster: informers have not caught up: %w (waiting for %s)", ctx.Err(), lag)
		case <-ch:
		}
		c.tmu.Lock()
	}
	c.tmu.Unlock()
	return nil
}

// throttleAt bounds the writes in flight to a watch: the fake watcher's
// channel holds 100 events and panics when full, so a burst such as a large
// ScaleTo pauses until the informer has drained what it sent (or, for a
// held kind, until the relay has taken it into its queue).
const throttleAt = 50

func (c *Cluster) throttle(k Kind) error {
	c.tmu.Lock()
	if c.t.watches[k] == 0 {
		// Nothing is watching; a later watch starts from a list.
		c.t.unsynced[k] = 0
	}
	need := c.t.unsynced[k] >= throttleAt
	c.tmu.Unlock()
	if !need {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.SyncTimeout)
	defer cancel()
	err := c.wait(ctx, func() bool {
		key := c.t.lastKey[k]
		// Watch events arrive in order, so once the last write is in the
		// indexer every earlier one has left the channel too.
		want := c.t.expected[k][key]
		if c.t.gates[k].held {
			// The informer gets nothing; the relay must have taken
			// the events off the fake's channel.
			return c.t.watches[k] == 0 || c.t.gates[k].relayed[key] == want
		}
		return c.t.watches[k] == 0 || c.t.own[k].seen[key] == want
	})
	if err == nil {
		c.tmu.Lock()
		c.t.unsynced[k] = 0
		c.tmu.Unlock()
	}
	return err
}

// countedWatch tells the cluster when the informer stops watching, so
// throttling and Start know whether events are being consumed.
type countedWatch struct {
	watch.Interface
	c       *Cluster
	k       Kind
	stopped bool
}

func (w *countedWatch) Stop() {
	w.c.tmu.Lock()
	if !w.stopped {
		w.stopped = true
		w.c.t.watches[w.k]--
		w.c.broadcastLocked()
	}
	w.c.tmu.Unlock()
	w.Interface.Stop()
}

// trackedHandler calls the real handler, then records what it has seen.
type trackedHandler struct {
	inner cache.ResourceEventHandler
	c     *Cluster
	l     *listener
}

func (h trackedHandler) OnAdd(obj any, initial bool) {
	h.inner.OnAdd(obj, initial)
	h.c.saw(h.l, obj, false)
}

func (h trackedHandler) OnUpdate(old, obj any) {
	h.inner.OnUpdate(old, obj)
	h.c.saw(h.l, obj, false)
}

func (h trackedHandler) OnDelete(obj any) {
	h.inner.OnDelete(obj)
	h.c.saw(h.l, obj, true)
}

// trackedInformer wraps the informers of the kinds the cluster writes so
// that every handler registered on them takes part in Sync.
type trackedInformer struct {
	cache.SharedIndexInformer
	c *Cluster
	k Kind
}

func (i *trackedInformer) register(h cache.ResourceEventHandler, add func(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error)) (cache.ResourceEventHandlerRegistration, error) {
	l := i.c.addListener(i.k)
	reg, err := add(trackedHandler{inner: h, c: i.c, l: l})
	if err != nil {
		i.c.removeListener(l)
		return nil, err
	}
	i.c.tmu.Lock()
	i.c.t.regs[reg] = l
	i.c.tmu.Unlock()
	return reg, nil
}

func (i *trackedInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return i.register(h, i.SharedIndexInformer.AddEventHandler)
}

func (i *trackedInformer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, resync time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return i.register(h, func(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
		return i.SharedIndexInformer.AddEventHandlerWithResyncPeriod(h, resync)
	})
}

func (i *trackedInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, opts cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return i.register(h, func(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
		return i.SharedIndexInformer.AddEventHandlerWithOptions(h, opts)
	})
}

func (i *trackedInformer) RemoveEventHandler(reg cache.ResourceEventHandlerRegistration) error {
	i.c.tmu.Lock()
	l := i.c.t.regs[reg]
	delete(i.c.t.regs, reg)
	i.c.tmu.Unlock()
	if l != nil {
		i.c.removeListener(l)
	}
	return i.SharedIndexInformer.RemoveEventHandler(reg)
}

// The wrappers below reach the three tracked informers through the same
// accessor chain client code uses; everything else is the real factory.

type trackedFactory struct {
	informers.SharedInformerFactory
	c *Cluster
}

func (f trackedFactory) Core() core.Interface {
	return trackedCore{f.SharedInformerFactory.Core(), f.c}
}

func (f trackedFactory) Apps() apps.Interface {
	return trackedApps{f.SharedInformerFactory.Apps(), f.c}
}

type trackedCore struct {
	core.Interface
	c *Cluster
}

func (g trackedCore) V1() corev1informers.Interface { return trackedCoreV1{g.Interface.V1(), g.c} }

type trackedCoreV1 struct {
	corev1informers.Interface
	c *Cluster
}

func (v trackedCoreV1) Pods() corev1informers.PodInformer {
	return trackedPods{v.Interface.Pods(), v.c}
}

func (v trackedCoreV1) Nodes() corev1informers.NodeInformer {
	return trackedNodes{v.Interface.Nodes(), v.c}
}

type trackedPods struct {
	corev1informers.PodInformer
	c *Cluster
}

func (p trackedPods) Informer() cache.SharedIndexInformer {
	return &trackedInformer{p.PodInformer.Informer(), p.c, KindPod}
}

type trackedNodes struct {
	corev1informers.NodeInformer
	c *Cluster
}

func (n trackedNodes) Informer() cache.SharedIndexInformer {
	return &trackedInformer{n.NodeInformer.Informer(), n.c, KindNode}
}

type trackedApps struct {
	apps.Interface
	c *Cluster
}

func (g trackedApps) V1() appsv1informers.Interface { return trackedAppsV1{g.Interface.V1(), g.c} }

type trackedAppsV1 struct {
	appsv1informers.Interface
	c *Cluster
}

func (v trackedAppsV1) StatefulSets() appsv1informers.StatefulSetInformer {
	return trackedStatefulSets{v.Interface.StatefulSets(), v.c}
}

type trackedStatefulSets struct {
	appsv1informers.StatefulSetInformer
	c *Cluster
}

func (s trackedStatefulSets) Informer() cache.SharedIndexInformer {
	return &trackedInformer{s.StatefulSetInformer.Informer(), s.c, KindStatefulSet}
}
