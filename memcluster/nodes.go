package memcluster

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched/state"
)

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
