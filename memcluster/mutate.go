package memcluster

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched/state"
)

// Mutators write through the clientset, so informers deliver their changes
// as events; call Sync to wait for them. They take no context because the
// fake clientset ignores it; the throttle that keeps a burst of writes from
// overflowing the fake watch is bounded by SyncTimeout.

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

// Cordon marks the node unschedulable, as kubectl cordon does, with the
// taint the node lifecycle controller adds for it.
func (c *Cluster) Cordon(node string) error {
	return c.updateNode(node, func(r *nodeRec, n *corev1.Node) {
		r.cordoned = true
		n.Spec.Unschedulable = true
		addTaint(n, corev1.Taint{Key: TaintUnschedulable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: c.now()})
	})
}

// Uncordon reverses Cordon.
func (c *Cluster) Uncordon(node string) error {
	return c.updateNode(node, func(r *nodeRec, n *corev1.Node) {
		r.cordoned = false
		n.Spec.Unschedulable = false
		removeTaints(n, TaintUnschedulable)
	})
}

// FailNode makes the node unreachable the way the node lifecycle controller
// records it when the kubelet stops reporting: Ready becomes Unknown, the
// node is tainted node.kubernetes.io/unreachable (NoSchedule and NoExecute)
// and its pods are marked not Ready. The pods stay bound to it.
func (c *Cluster) FailNode(node string) error {
	if err := c.updateNode(node, func(r *nodeRec, n *corev1.Node) {
		r.failed = true
		setReady(n, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", c.clock.Now())
		removeTaints(n, state.TaintNodeNotReady)
		addTaint(n, corev1.Taint{Key: state.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: c.now()})
		addTaint(n, corev1.Taint{Key: state.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: c.now()})
	}); err != nil {
		return err
	}
	return c.setPodsReady(node, false)
}

// RecoverNode reverses FailNode: Ready is True again, the unreachable and
// not-ready taints are gone, and the node's pods are Ready.
func (c *Cluster) RecoverNode(node string) error {
	if err := c.updateNode(node, func(r *nodeRec, n *corev1.Node) {
		r.failed = false
		setReady(n, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", c.clock.Now())
		removeTaints(n, state.TaintNodeUnreachable, state.TaintNodeNotReady)
	}); err != nil {
		return err
	}
	return c.setPodsReady(node, true)
}

// FailZone fails every node of the zone.
func (c *Cluster) FailZone(zone string) error {
	return c.eachInZone(zone, c.FailNode)
}

// RecoverZone recovers every node of the zone.
func (c *Cluster) RecoverZone(zone string) error {
	return c.eachInZone(zone, c.RecoverNode)
}

func (c *Cluster) eachInZone(zone string, f func(string) error) error {
	nodes := c.NodesInZone(zone)
	if len(nodes) == 0 {
		return fmt.Errorf("memcluster: no node in zone %q", zone)
	}
	for _, n := range nodes {
		if err := f(n); err != nil {
			return err
		}
	}
	return nil
}

// AddNode creates a Ready node. Pods created later may be bound to it.
func (c *Cluster) AddNode(spec NodeSpec) error {
	if spec.Name == "" {
		return fmt.Errorf("memcluster: node has no name")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.nodes[spec.Name]; dup {
		return fmt.Errorf("memcluster: node %q exists", spec.Name)
	}
	return c.createNodeLocked(context.Background(), spec)
}

// DeleteNode deletes the node object. Its pods stay bound to the name, as
// they do until pod garbage collection removes them.
func (c *Cluster) DeleteNode(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.nodes[name]; !ok {
		return fmt.Errorf("memcluster: unknown node %q", name)
	}
	if err := c.client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	delete(c.nodes, name)
	for i, n := range c.order {
		if n == name {
			c.order = append(c.order[:i:i], c.order[i+1:]...)
			break
		}
	}
	c.recordWrite(KindNode, name, version{})
	return c.throttle(KindNode)
}

func (c *Cluster) now() *metav1.Time {
	t := metav1.NewTime(c.clock.Now())
	return &t
}

// interleavedLocked orders nodes the way a zone spread constraint fills
// them: the first node of every zone, then the second of every zone, and so
// on; zones and the nodes within each keep creation order.
func (c *Cluster) interleavedLocked() []string {
	var zones []string
	byZone := map[string][]string{}
	for _, n := range c.order {
		z := c.nodes[n].spec.Zone
		if _, ok := byZone[z]; !ok {
			zones = append(zones, z)
		}
		byZone[z] = append(byZone[z], n)
	}
	out := make([]string, 0, len(c.order))
	for round := 0; len(out) < len(c.order); round++ {
		for _, z := range zones {
			if round < len(byZone[z]) {
				out = append(out, byZone[z][round])
			}
		}
	}
	return out
}

// nodeForLocked picks the node for a pod being created (explicit is true)
// or a pending pod being bound.
func (c *Cluster) nodeForLocked(ord int32, explicit bool) string {
	if explicit && int(ord) < len(c.opts.PodNodes) {
		return c.opts.PodNodes[ord]
	}
	order := c.interleavedLocked()
	for i := range order {
		n := order[(int(ord)+i)%len(order)]
		if r := c.nodes[n]; !r.cordoned && !r.failed {
			return n
		}
	}
	return ""
}

func (c *Cluster) createNodeLocked(ctx context.Context, spec NodeSpec) error {
	rv := c.nextRV()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:              spec.Name,
			UID:               c.nextUID("node"),
			ResourceVersion:   rv,
			CreationTimestamp: metav1.NewTime(c.clock.Now()),
			Labels:            map[string]string{LabelHostname: spec.Name},
		},
	}
	if spec.Zone != "" {
		node.Labels[LabelZone] = spec.Zone
	}
	setReady(node, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", c.clock.Now())
	if _, err := c.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return err
	}
	c.nodes[spec.Name] = &nodeRec{spec: spec}
	c.order = append(c.order, spec.Name)
	c.recordWrite(KindNode, spec.Name, version{rv: rv, present: true})
	return c.throttle(KindNode)
}

func (c *Cluster) updateNode(name string, mutate func(*nodeRec, *corev1.Node)) error {
	ctx := context.Background()
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.nodes[name]
	if !ok {
		return fmt.Errorf("memcluster: unknown node %q", name)
	}
	node, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	mutate(r, node)
	node.ResourceVersion = c.nextRV()
	if _, err := c.client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		return err
	}
	c.recordWrite(KindNode, name, version{rv: node.ResourceVersion, present: true})
	return c.throttle(KindNode)
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
				Spec:       podSpec(),
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

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "adapter", Image: "vsched.dev/adapter:test"}}}
}

func (c *Cluster) createPodLocked(ctx context.Context, ord int32) error {
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
		Spec: podSpec(),
	}
	bindPod(pod, c.nodeForLocked(ord, true))
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

// setPodsReady marks the StatefulSet's pods on the node Ready or not, as
// the node lifecycle controller (failure) and the kubelet (recovery) do.
func (c *Cluster) setPodsReady(node string, ready bool) error {
	ctx := context.Background()
	c.mu.Lock()
	defer c.mu.Unlock()
	list, err := c.client.CoreV1().Pods(c.opts.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range list.Items {
		p := &list.Items[i]
		if _, ours := c.ordinalOf(p.Name); !ours || p.Spec.NodeName != node || podReady(p) == ready {
			continue
		}
		setPodReady(p, ready)
		if err := c.writePodLocked(ctx, p); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return err
		}
	}
	return nil
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

func setReady(n *corev1.Node, status corev1.ConditionStatus, reason, msg string, now time.Time) {
	cond := corev1.NodeCondition{
		Type: corev1.NodeReady, Status: status, Reason: reason, Message: msg,
		LastHeartbeatTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now),
	}
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			if n.Status.Conditions[i].Status == status {
				cond.LastTransitionTime = n.Status.Conditions[i].LastTransitionTime
			}
			n.Status.Conditions[i] = cond
			return
		}
	}
	n.Status.Conditions = append(n.Status.Conditions, cond)
}

func addTaint(n *corev1.Node, t corev1.Taint) {
	for _, have := range n.Spec.Taints {
		if have.Key == t.Key && have.Effect == t.Effect {
			return
		}
	}
	n.Spec.Taints = append(n.Spec.Taints, t)
}

func removeTaints(n *corev1.Node, keys ...string) {
	kept := n.Spec.Taints[:0]
	for _, t := range n.Spec.Taints {
		drop := false
		for _, k := range keys {
			drop = drop || t.Key == k
		}
		if !drop {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		kept = nil
	}
	n.Spec.Taints = kept
}

func ptr[T any](v T) *T { return &v }
