package memcluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RecreatePod creates the pod with the ordinal, bound by the default rule,
// as the StatefulSet controller does after a pod is deleted. It fails when
// the pod exists.
func (c *Cluster) RecreatePod(ord int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.createPodLocked(context.Background(), ord)
}

// DeletePod deletes the pod with the ordinal. It is not recreated until
// RecreatePod or ScaleTo.
func (c *Cluster) DeletePod(ord int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deletePodLocked(context.Background(), ord)
}

// UnbindPod leaves the pod pending, bound to no node (the API server would
// only allow this for a recreated pod; the fake does not mind).
func (c *Cluster) UnbindPod(ord int32) error {
	return c.updatePod(ord, func(p *corev1.Pod) { bindPod(p, "") })
}

// BindPod binds the pod to a node, as kube-scheduler does.
func (c *Cluster) BindPod(ord int32, node string) error {
	c.mu.Lock()
	_, known := c.nodes[node]
	c.mu.Unlock()
	if !known {
		return fmt.Errorf("memcluster: unknown node %q", node)
	}
	return c.updatePod(ord, func(p *corev1.Pod) { bindPod(p, node) })
}

// BindPending binds every unbound pod by the default rule, as kube-scheduler
// would once nodes take pods again. Pods for which no node is available
// stay unbound.
func (c *Cluster) BindPending() error {
	ords, err := c.PodOrdinals()
	if err != nil {
		return err
	}
	for _, ord := range ords {
		c.mu.Lock()
		node := c.nodeForLocked(ord, false)
		c.mu.Unlock()
		if node == "" {
			continue
		}
		err := c.updatePodIf(ord, func(p *corev1.Pod) bool {
			if p.Spec.NodeName != "" {
				return false
			}
			bindPod(p, node)
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// AnnotatePod sets an annotation on the pod.
func (c *Cluster) AnnotatePod(ord int32, key, value string) error {
	return c.updatePod(ord, func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[key] = value
	})
}

// RemovePodAnnotation removes an annotation from the pod.
func (c *Cluster) RemovePodAnnotation(ord int32, key string) error {
	return c.updatePod(ord, func(p *corev1.Pod) { delete(p.Annotations, key) })
}

// SetDraining sets the draining annotation to "true" on the pod, or removes
// it.
func (c *Cluster) SetDraining(ord int32, draining bool) error {
	if draining {
		return c.AnnotatePod(ord, c.opts.DrainingAnnotation, "true")
	}
	return c.RemovePodAnnotation(ord, c.opts.DrainingAnnotation)
}

// CreatePod creates the pod with the ordinal bound to node ("" leaves it
// unbound), whatever the StatefulSet's replicas: a pod the StatefulSet
// controller made before a size the informers show, one above the replicas
// it has not removed yet, or one a test places by hand. It fails when the
// pod exists or the node is unknown.
func (c *Cluster) CreatePod(ord int32, node string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, known := c.nodes[node]; node != "" && !known {
		return fmt.Errorf("memcluster: unknown node %q", node)
	}
	return c.createPodOnLocked(context.Background(), ord, node)
}

func (c *Cluster) podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "adapter", Image: "vsched.dev/adapter:test", Resources: *c.opts.PodResources.DeepCopy()}}}
}

func (c *Cluster) createPodLocked(ctx context.Context, ord int32) error {
	if ord < 0 {
		return fmt.Errorf("memcluster: negative ordinal %d", ord)
	}
	return c.createPodOnLocked(ctx, ord, c.nodeForLocked(ord, true))
}

// createPodOnLocked creates the pod bound to node ("" for none).
func (c *Cluster) createPodOnLocked(ctx context.Context, ord int32, node string) error {
	if ord < 0 {
		return fmt.Errorf("memcluster: negative ordinal %d", ord)
	}
	name := c.PodName(ord)
	rv := c.nextRV()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         c.opts.Namespace,
			UID:               c.nextUID("pod"),
			ResourceVersion:   rv,
			CreationTimestamp: metav1.NewTime(c.clock.Now()),
			Labels: map[string]string{
				LabelApp:      c.opts.StatefulSetName,
				LabelPodName:  name,
				LabelPodIndex: fmt.Sprint(ord),
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "StatefulSet", Name: c.opts.StatefulSetName, UID: c.setUID,
				Controller: ptr(true), BlockOwnerDeletion: ptr(true),
			}},
		},
		Spec: c.podSpec(),
	}
	bindPod(pod, node)
	if r := c.nodes[pod.Spec.NodeName]; r != nil && r.failed {
		setPodReady(pod, false)
	}
	if _, err := c.client.CoreV1().Pods(c.opts.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	c.recordWrite(KindPod, c.opts.Namespace+"/"+name, version{rv: rv, present: true})
	return c.throttle(KindPod)
}

func (c *Cluster) deletePodLocked(ctx context.Context, ord int32) error {
	name := c.PodName(ord)
	if err := c.client.CoreV1().Pods(c.opts.Namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	c.recordWrite(KindPod, c.opts.Namespace+"/"+name, version{})
	return c.throttle(KindPod)
}

func (c *Cluster) updatePod(ord int32, mutate func(*corev1.Pod)) error {
	return c.updatePodIf(ord, func(p *corev1.Pod) bool { mutate(p); return true })
}

// updatePodIf writes the pod when mutate reports a change.
func (c *Cluster) updatePodIf(ord int32, mutate func(*corev1.Pod) bool) error {
	ctx := context.Background()
	c.mu.Lock()
	defer c.mu.Unlock()
	pod, err := c.client.CoreV1().Pods(c.opts.Namespace).Get(ctx, c.PodName(ord), metav1.GetOptions{})
	if err != nil {
		return err
	}
	if !mutate(pod) {
		return nil
	}
	return c.writePodLocked(ctx, pod)
}

func (c *Cluster) writePodLocked(ctx context.Context, pod *corev1.Pod) error {
	pod.ResourceVersion = c.nextRV()
	if _, err := c.client.CoreV1().Pods(c.opts.Namespace).Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
		return err
	}
	c.recordWrite(KindPod, pod.Namespace+"/"+pod.Name, version{rv: pod.ResourceVersion, present: true})
	return c.throttle(KindPod)
}

func bindPod(p *corev1.Pod, node string) {
	p.Spec.NodeName = node
	if node == "" {
		p.Status = corev1.PodStatus{
			Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			}},
		}
		return
	}
	p.Status = corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue},
		},
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func setPodReady(p *corev1.Pod, ready bool) {
	if p.Spec.NodeName == "" {
		return
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			p.Status.Conditions[i].Status = status
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: status})
}
