package autoscaler

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
)

// Cache reads the pods and the StatefulSet from informers' caches rather
// than from the API server, for the autoscaler's cycles: the pods for their
// draining annotations (package evictor), the StatefulSet for its size and
// annotations. A nil read goes through Options.Client instead. The
// scheduler has its own informers (statefulset.Informers); these reads are
// the autoscaler's alone.
type Cache struct {
	// ListPods lists the pods of a namespace.
	ListPods func(namespace string) ([]*corev1.Pod, error)
	// GetStatefulSet reads a StatefulSet.
	GetStatefulSet func(namespace, name string) (*appsv1.StatefulSet, error)
}

// CacheFromFactory returns reads over the listers of f's pod and StatefulSet
// informers: the informers statefulset.InformersFromFactory registers, so
// that the scheduler and its autoscaler share one watch of each. f.Start
// starts them.
func CacheFromFactory(f informers.SharedInformerFactory) Cache {
	pods := f.Core().V1().Pods()
	sets := f.Apps().V1().StatefulSets()
	return Cache{
		ListPods: func(ns string) ([]*corev1.Pod, error) {
			return pods.Lister().Pods(ns).List(labels.Everything())
		},
		GetStatefulSet: func(ns, name string) (*appsv1.StatefulSet, error) {
			return sets.Lister().StatefulSets(ns).Get(name)
		},
	}
}
