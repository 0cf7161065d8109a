package memcluster

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// DeleteStatefulSet deletes the StatefulSet, as an upgrade that must change
// one of its immutable fields does before it applies the new one. With
// orphan (kubectl's --cascade=orphan) the pods keep running, for the
// StatefulSet created again to adopt; otherwise the garbage collector
// deletes them too, highest ordinal first. CreateStatefulSet brings it
// back.
func (c *Cluster) DeleteStatefulSet(orphan bool) error {
	ctx := context.Background()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.deleteSetLocked(); err != nil {
		return err
	}
	if orphan {
		return nil
	}
	existing, err := c.PodOrdinals()
	if err != nil {
		return err
	}
	for i := len(existing) - 1; i >= 0; i-- {
		if err := c.deletePodLocked(ctx, existing[i]); err != nil {
			return err
		}
	}
	c.setMu.Lock()
	c.replicas = 0
	c.setMu.Unlock()
	return nil
}

func (c *Cluster) deleteSetLocked() error {
	c.setMu.Lock()
	err := c.client.Tracker().Delete(statefulSetsGVR, c.opts.Namespace, c.opts.StatefulSetName)
	c.setMu.Unlock()
	if err != nil {
		return err
	}
	c.recordWrite(KindStatefulSet, c.opts.Namespace+"/"+c.opts.StatefulSetName, version{})
	return c.throttle(KindStatefulSet)
}

// CreateStatefulSet creates the StatefulSet deleted by DeleteStatefulSet
// again, with spec.replicas replicas, a new UID and generation 1, as
// re-applying its manifest does (the sample's says replicas: 0: the
// autoscaler owns the size). The pods do not follow until Settle, as they
// would not until the StatefulSet controller adopts and resizes them. It
// fails while the StatefulSet exists.
func (c *Cluster) CreateStatefulSet(replicas int32) error {
	if replicas < 0 {
		return fmt.Errorf("memcluster: cannot create the StatefulSet with %d replicas", replicas)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.client.Tracker().Get(statefulSetsGVR, c.opts.Namespace, c.opts.StatefulSetName); err == nil {
		return apierrors.NewAlreadyExists(appsv1.Resource("statefulsets"), c.opts.StatefulSetName)
	}
	c.setMu.Lock()
	// Generation counts the object's spec changes: a new object starts
	// over, as the API server's does.
	c.gen = 0
	followed := c.replicas
	c.setMu.Unlock()
	if err := c.writeStatefulSetLocked(context.Background(), replicas, true); err != nil {
		return err
	}
	// The object says replicas; the pods are as the delete left them.
	c.setMu.Lock()
	c.replicas = followed
	c.setMu.Unlock()
	return nil
}

// StatefulSetExists reports whether the StatefulSet exists (it does unless
// DeleteStatefulSet deleted it and CreateStatefulSet has not brought it
// back).
func (c *Cluster) StatefulSetExists() bool {
	_, err := c.client.Tracker().Get(statefulSetsGVR, c.opts.Namespace, c.opts.StatefulSetName)
	return err == nil
}

// specChanged reports whether set's spec.replicas differs from the stored
// StatefulSet's (or none is stored). Called with setMu held.
func (c *Cluster) specChanged(set *appsv1.StatefulSet) bool {
	old, err := c.client.Tracker().Get(statefulSetsGVR, set.Namespace, set.Name)
	if err != nil {
		return true
	}
	return specReplicasOf(old.(*appsv1.StatefulSet)) != specReplicasOf(set)
}

func specReplicasOf(set *appsv1.StatefulSet) int32 {
	if set.Spec.Replicas == nil {
		return 1
	}
	return *set.Spec.Replicas
}
