package embedkit

import (
	"k8s.io/client-go/tools/cache"

	"github.com/vsched/vsched"
)

// Lister returns a vsched.VPodLister over list, converting each object
// with convert; a conversion error fails the list (a list missing a source
// would make its placements look free).
func Lister[T any](list func() ([]T, error), convert func(T) (vsched.VPod, error)) vsched.VPodLister {
	return func() ([]vsched.VPod, error) {
		objs, err := list()
		if err != nil {
			return nil, err
		}
		out := make([]vsched.VPod, 0, len(objs))
		for _, obj := range objs {
			v, err := convert(obj)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
}

// SourceHandler returns the event handler for the sources' informer: it
// tells the scheduler what each event shows (Observe on add and update,
// Forget on delete, tombstones included) and then calls enqueue with the
// object, so the controller reconciles the source. convert returns false
// for an object that is not a source. enqueue may be nil (a
// controller-runtime controller watches the sources itself).
func (s *Scheduler) SourceHandler(convert func(obj any) (vsched.VPod, bool), enqueue func(obj any)) cache.ResourceEventHandlerFuncs {
	changed := func(obj any) {
		if v, ok := convert(obj); ok {
			s.Observe(v)
		}
		if enqueue != nil {
			enqueue(obj)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(_, obj any) { changed(obj) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if v, ok := convert(obj); ok {
				s.Forget(v.GetKey())
			}
		},
	}
}
