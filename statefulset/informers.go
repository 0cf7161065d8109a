package statefulset

import (
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
