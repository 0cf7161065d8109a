package memcluster

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// ScaleTo sets the StatefulSet's spec.replicas to n and, as the StatefulSet
// controller would, creates the missing pods below n (bound by the rule in
// Options.PodNodes) and deletes the pods at n and above, highest first.
func (c *Cluster) ScaleTo(n int32) error {
	if n < 0 {
		return fmt.Errorf("memcluster: cannot scale to %d replicas", n)
	}
	ctx := context.Background()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writeStatefulSetLocked(ctx, n, false); err != nil {
		return err
	}
	existing, err := c.PodOrdinals()
	if err != nil {
		return err
	}
	have := make(map[int32]bool, len(existing))
	for _, o := range existing {
		have[o] = true
	}
	for ord := range n {
		if !have[ord] {
			if err := c.createPodLocked(ctx, ord); err != nil {
				return err
			}
		}
	}
	for i := len(existing) - 1; i >= 0 && existing[i] >= n; i-- {
		if err := c.deletePodLocked(ctx, existing[i]); err != nil {
			return err
		}
	}
	return nil
}

// SetReplicas writes the StatefulSet's spec.replicas, as a client's update
// does, without the pods following: the StatefulSet controller has not
// acted yet. Pods at n and above stay and missing ones below n are not
// created until Settle (or ScaleTo); CreatePod and DeletePod change them
// one by one. Replicas keeps reporting the size the pods last followed.
func (c *Cluster) SetReplicas(n int32) error {
	if n < 0 {
		return fmt.Errorf("memcluster: cannot set %d replicas", n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writeSpecReplicas(n); err != nil {
		return err
	}
	return c.throttle(KindStatefulSet)
}

// writeSpecReplicas stores the StatefulSet with spec.replicas n, not
// settled. Called with mu held.
func (c *Cluster) writeSpecReplicas(n int32) error {
	c.setMu.Lock()
	defer c.setMu.Unlock()
	obj, err := c.client.Tracker().Get(statefulSetsGVR, c.opts.Namespace, c.opts.StatefulSetName)
	if err != nil {
		return err
	}
	set := obj.(*appsv1.StatefulSet).DeepCopy()
	set.Spec.Replicas = &n
	return c.writeSetLocked(set, false, false)
}

// Settle does what the StatefulSet controller does after spec.replicas was
// written through the scale subresource: ScaleTo the written size. It
// reports the size. While the StatefulSet is deleted (DeleteStatefulSet)
// there is nothing to follow: it does nothing and reports 0.
func (c *Cluster) Settle() (int32, error) {
	set, err := c.client.Tracker().Get(statefulSetsGVR, c.opts.Namespace, c.opts.StatefulSetName)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := int32(1)
	if r := set.(*appsv1.StatefulSet).Spec.Replicas; r != nil {
		n = *r
	}
	return n, c.ScaleTo(n)
}

// writeStatefulSetLocked writes the StatefulSet as its controller reports
// it settled at replicas. Called with mu held; the write itself happens
// under setMu (see writeSetLocked).
func (c *Cluster) writeStatefulSetLocked(_ context.Context, replicas int32, create bool) error {
	if err := c.settleStatefulSet(replicas, create); err != nil {
		return err
	}
	return c.throttle(KindStatefulSet)
}

func (c *Cluster) settleStatefulSet(replicas int32, create bool) error {
	c.setMu.Lock()
	defer c.setMu.Unlock()
	labels := map[string]string{LabelApp: c.opts.StatefulSetName}
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:      c.opts.StatefulSetName,
			Namespace: c.opts.Namespace,
		},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: c.opts.StatefulSetName,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       c.podSpec(),
			},
		},
		Status: appsv1.StatefulSetStatus{
			Replicas:          replicas,
			ReadyReplicas:     replicas,
			AvailableReplicas: replicas,
		},
	}
	if create {
		set.UID = c.nextUID("statefulset")
		c.setUID = set.UID
		set.CreationTimestamp = metav1.NewTime(c.clock.Now())
	} else {
		old, err := c.client.Tracker().Get(statefulSetsGVR, c.opts.Namespace, c.opts.StatefulSetName)
		if err != nil {
			return err
		}
		set.ObjectMeta = old.(*appsv1.StatefulSet).ObjectMeta
	}
	return c.writeSetLocked(set, create, true)
}

// writeSetLocked stamps the StatefulSet with the next generation (when its
// spec changed) and a fresh resource version and stores it, for the cluster's own writes and
// for the scale subresource alike. It goes to the tracker, not through the
// clientset: the scale subresource is served by a reactor, which runs with
// the fake clientset's lock held, so nothing that writes the StatefulSet
// may need that lock. Called with setMu held; settled also reports the
// generation as observed, as the StatefulSet controller does once the pods
// follow.
func (c *Cluster) writeSetLocked(set *appsv1.StatefulSet, create, settled bool) error {
	// As the API server's, the generation counts spec changes: a write
	// that only reports the pods followed (Settle) keeps it.
	if create || c.specChanged(set) {
		c.gen++
	}
	set.Generation = c.gen
	if settled {
		set.Status.ObservedGeneration = c.gen
	}
	set.ResourceVersion = c.nextRV()
	var err error
	if create {
		err = c.client.Tracker().Create(statefulSetsGVR, set, set.Namespace)
	} else {
		err = c.client.Tracker().Update(statefulSetsGVR, set, set.Namespace)
	}
	if err != nil {
		return err
	}
	if settled {
		c.replicas = *set.Spec.Replicas
	}
	c.recordWrite(KindStatefulSet, set.Namespace+"/"+set.Name, version{rv: set.ResourceVersion, present: true})
	return nil
}
