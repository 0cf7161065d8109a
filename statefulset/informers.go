package statefulset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// Informer is what the scheduler calls on an informer: it registers its
// event handlers, whose registrations' HasSynced tell it when it has seen
// the initial list, and removes them on Close. client-go's
// cache.SharedIndexInformer and controller-runtime's cache.Informer both
// implement it, so a controller-runtime manager's cache can serve the
// scheduler without a second set of watches.
type Informer interface {
	AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error)
	RemoveEventHandler(cache.ResourceEventHandlerRegistration) error
}

// Informers are the scheduler's views of the cluster: informers on the
// pods of the StatefulSet's namespace, on the nodes, and on the
// StatefulSet. An informer limited to the StatefulSet's namespace is enough
// for the pods and the StatefulSet (nodes are cluster-scoped either way).
// The caller starts them. InformersFromFactory builds them from client-go's
// factory. The autoscaler's reads from the same caches are its own
// (autoscaler.Cache).
type Informers struct {
	Pods, Nodes, StatefulSets Informer
}

// InformersFromFactory returns the pod, node and StatefulSet informers of
// f. It registers the three informers with f, so f.Start starts them.
func InformersFromFactory(f informers.SharedInformerFactory) Informers {
	return Informers{
		Pods:         f.Core().V1().Pods().Informer(),
		Nodes:        f.Core().V1().Nodes().Informer(),
		StatefulSets: f.Apps().V1().StatefulSets().Informer(),
	}
}

func (i Informers) empty() bool { return i.Pods == nil && i.Nodes == nil && i.StatefulSets == nil }

func (s *Scheduler) watch(inf Informers) error {
	handlers := []struct {
		informer Informer
		funcs    cache.ResourceEventHandlerFuncs
	}{
		{inf.Pods, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { s.podChanged(obj) },
			UpdateFunc: func(_, obj any) { s.podChanged(obj) },
			DeleteFunc: s.podDeleted,
		}},
		{inf.Nodes, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { s.nodeChanged(obj) },
			UpdateFunc: func(_, obj any) { s.nodeChanged(obj) },
			DeleteFunc: s.nodeDeleted,
		}},
		{inf.StatefulSets, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { s.setChanged(obj) },
			UpdateFunc: func(_, obj any) { s.setChanged(obj) },
			DeleteFunc: func(obj any) { s.setDeleted(obj) },
		}},
	}
	for _, h := range handlers {
		reg, err := h.informer.AddEventHandler(h.funcs)
		if err != nil {
			s.Close()
			return err
		}
		// The registration's HasSynced, not the informer's: it holds only
		// once this handler has seen every object of the initial list, so
		// no decision is made on a partly replayed state.
		s.synced = append(s.synced, reg.HasSynced)
		s.handlers = append(s.handlers, handlerReg{h.informer, reg})
	}
	return nil
}

type handlerReg struct {
	informer Informer
	reg      cache.ResourceEventHandlerRegistration
}

// Close removes the scheduler's informer handlers, for a controller that
// replaces a scheduler while keeping its informers: without it the old
// scheduler would keep receiving events, and stay in memory, for as long as
// the informers live.
func (s *Scheduler) Close() {
	if s.metrics != nil && s.metrics.reg != nil {
		_ = s.metrics.reg.Unregister()
	}
	for _, h := range s.handlers {
		_ = h.informer.RemoveEventHandler(h.reg)
	}
	s.handlers = nil
}

func tombstone(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

func (s *Scheduler) podChanged(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Namespace != s.cfg.Namespace {
		return
	}
	s.drains.observe(pod, s.st.Options().DrainingAnnotation)
	s.st.Lock()
	grew := s.st.UpsertPodAt(pod, s.cfg.Clock.Now())
	s.st.Unlock()
	if grew {
		s.requeuePending()
	}
}

func (s *Scheduler) podDeleted(obj any) {
	pod, ok := tombstone(obj).(*corev1.Pod)
	if !ok || pod.Namespace != s.cfg.Namespace {
		return
	}
	s.st.Lock()
	s.st.DeletePod(pod.Name)
	s.st.Unlock()
}

func (s *Scheduler) nodeChanged(obj any) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	s.st.Lock()
	grew := s.st.UpsertNode(node, s.cfg.Clock.Now())
	s.st.Unlock()
	s.seen.node(node)
	if grew {
		s.requeuePending()
	}
}

func (s *Scheduler) nodeDeleted(obj any) {
	node, ok := tombstone(obj).(*corev1.Node)
	if !ok {
		return
	}
	s.st.Lock()
	s.st.DeleteNode(node.Name)
	s.st.Unlock()
	s.seen.nodeGone(node.Name)
}

func (s *Scheduler) setChanged(obj any) {
	if set, ok := obj.(*appsv1.StatefulSet); ok {
		s.ObserveStatefulSet(set)
	}
}

// ObserveStatefulSet takes the StatefulSet as its informer's add or update
// event would deliver it; objects of other StatefulSets are ignored. For
// controllers that forward events, and for tests replaying a late one: an
// event older than one already seen changes nothing.
func (s *Scheduler) ObserveStatefulSet(set *appsv1.StatefulSet) {
	if set.Namespace != s.cfg.Namespace || set.Name != s.cfg.Name {
		return
	}
	s.st.Lock()
	take, back := s.presence.arrive(set, s.st.HighestUsedOrdinal()+1, s.loaded.Load(), s.cfg.Clock.Now())
	var grew bool
	var above []types.NamespacedName
	if take && s.outsideEvent(set) {
		grew, above = s.observeSize(set)
	}
	observed := s.st.ObservedReplicas()
	s.st.Unlock()
	s.kickRestore()
	if back {
		restore, _ := s.presence.restoreSize()
		s.seen.logger().Infow(LogStatefulSetBack, "replicas", specReplicas(set), "restoreTo", restore)
	}
	s.seen.replicas(observed)
	if grew {
		s.requeuePending()
	}
	s.requeueSources(above)
}

// setDeleted takes the StatefulSet's delete as its absence, not as a size
// of 0: every placement stays where it is, and Schedule answers
// vsched.ErrStatefulSetMissing until it is back (presence.go).
func (s *Scheduler) setDeleted(obj any) {
	set, ok := tombstone(obj).(*appsv1.StatefulSet)
	if !ok || set.Namespace != s.cfg.Namespace || set.Name != s.cfg.Name {
		return
	}
	s.presence.gone(s.cfg.Clock.Now())
	s.seen.logger().Infow(LogStatefulSetDeleted)
}
