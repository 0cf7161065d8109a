package statefulset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
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
// StatefulSet, and reads from their caches for the autoscaler. An informer
// limited to the StatefulSet's namespace is enough for the pods and the
// StatefulSet (nodes are cluster-scoped either way). The caller starts
// them. InformersFromFactory builds them from client-go's factory.
type Informers struct {
	Pods, Nodes, StatefulSets Informer
	// ListPods lists the pods of a namespace from the pods informer's
	// cache; the autoscaler's evictor reads their draining annotations.
	// nil: the autoscaler lists through its client.
	ListPods func(namespace string) ([]*corev1.Pod, error)
	// GetStatefulSet reads a StatefulSet from its informer's cache, for
	// the autoscaler. nil: the autoscaler reads through its client.
	GetStatefulSet func(namespace, name string) (*appsv1.StatefulSet, error)
}

// InformersFromFactory returns the pod, node and StatefulSet informers of
// f, and listers over their caches. It registers the three informers with
// f, so f.Start starts them.
func InformersFromFactory(f informers.SharedInformerFactory) Informers {
	pods := f.Core().V1().Pods()
	sets := f.Apps().V1().StatefulSets()
	return Informers{
		Pods:         pods.Informer(),
		Nodes:        f.Core().V1().Nodes().Informer(),
		StatefulSets: sets.Informer(),
		ListPods: func(ns string) ([]*corev1.Pod, error) {
			return pods.Lister().Pods(ns).List(labels.Everything())
		},
		GetStatefulSet: func(ns, name string) (*appsv1.StatefulSet, error) {
			return sets.Lister().StatefulSets(ns).Get(name)
		},
	}
}

func (i Informers) empty() bool { return i.Pods == nil && i.Nodes == nil && i.StatefulSets == nil }
