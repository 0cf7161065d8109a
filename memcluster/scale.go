package memcluster

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

var statefulSetsGVR = appsv1.SchemeGroupVersion.WithResource("statefulsets")

// The fake clientset does not serve subresources: an UpdateScale would
// store the Scale in the StatefulSet's place. The cluster serves
// statefulsets/scale itself, as the API server does, so that code under
// test (the autoscaler) can resize the StatefulSet through it.

func (c *Cluster) serveScale() {
	c.client.PrependReactor("get", "statefulsets", c.getScale)
	c.client.PrependReactor("update", "statefulsets", c.updateScale)
}

func scaleOf(set *appsv1.StatefulSet) *autoscalingv1.Scale {
	replicas := int32(1) // the API server's default for an unset field
	if set.Spec.Replicas != nil {
		replicas = *set.Spec.Replicas
	}
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name: set.Name, Namespace: set.Namespace, UID: set.UID,
			ResourceVersion: set.ResourceVersion, CreationTimestamp: set.CreationTimestamp,
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: replicas},
		Status: autoscalingv1.ScaleStatus{Replicas: set.Status.Replicas, Selector: "app=" + set.Name},
	}
}

func (c *Cluster) getScale(action k8stesting.Action) (bool, runtime.Object, error) {
	get, ok := action.(k8stesting.GetAction)
	if !ok || action.GetSubresource() != "scale" {
		return false, nil, nil
	}
	obj, err := c.client.Tracker().Get(statefulSetsGVR, get.GetNamespace(), get.GetName())
	if err != nil {
		return true, nil, err
	}
	return true, scaleOf(obj.(*appsv1.StatefulSet)), nil
}

// updateScale writes spec.replicas, refusing a Scale read from an older
// version with a conflict. The write is the cluster's own (a fresh version,
// tracked by Sync); the pods do not follow until ScaleTo, as they would not
// until the StatefulSet controller acts. It runs with the fake clientset's
// lock held, so it must not call the clientset (see writeSetLocked).
func (c *Cluster) updateScale(action k8stesting.Action) (bool, runtime.Object, error) {
	update, ok := action.(k8stesting.UpdateAction)
	if !ok || action.GetSubresource() != "scale" {
		return false, nil, nil
	}
	sc, ok := update.GetObject().(*autoscalingv1.Scale)
	if !ok {
		return true, nil, fmt.Errorf("memcluster: statefulsets/scale update with a %T", update.GetObject())
	}
	if sc.Spec.Replicas < 0 {
		return true, nil, apierrors.NewBadRequest(fmt.Sprintf("spec.replicas: must be non-negative, got %d", sc.Spec.Replicas))
	}
	c.setMu.Lock()
	defer c.setMu.Unlock()
	obj, err := c.client.Tracker().Get(statefulSetsGVR, update.GetNamespace(), sc.Name)
	if err != nil {
		return true, nil, err
	}
	set := obj.(*appsv1.StatefulSet).DeepCopy()
	if sc.ResourceVersion != "" && sc.ResourceVersion != set.ResourceVersion {
		return true, nil, apierrors.NewConflict(appsv1.Resource("statefulsets"), sc.Name,
			fmt.Errorf("the object has been modified: resource version is %s, the scale was read at %s", set.ResourceVersion, sc.ResourceVersion))
	}
	replicas := sc.Spec.Replicas
	set.Spec.Replicas = &replicas
	if err := c.writeSetLocked(set, false, false); err != nil {
		return true, nil, err
	}
	return true, scaleOf(set), nil
}
