package memcluster

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Mutators write through the clientset, so informers deliver their changes
// as events; call Sync to wait for them. They take no context because the
// fake clientset ignores it; the throttle that keeps a burst of writes from
// overflowing the fake watch is bounded by SyncTimeout.

func (c *Cluster) now() *metav1.Time {
	t := metav1.NewTime(c.clock.Now())
	return &t
}

func ptr[T any](v T) *T { return &v }
