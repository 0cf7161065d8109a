package state

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

const sts = "adapter"

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func newState(t *testing.T, capacity int32) *State {
	t.Helper()
	s, err := New(Options{StatefulSetName: sts, Capacity: capacity})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type podOpt func(*corev1.Pod)

func mkPod(ord int32, node string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: vsched.PodName(sts, ord), Namespace: "ns"},
		Spec:       corev1.PodSpec{NodeName: node},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func annotated(key, value string) podOpt {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[key] = value
	}
}

func terminating(p *corev1.Pod) {
	now := metav1.NewTime(t0)
	p.DeletionTimestamp = &now
}

func notReadyPod(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
}

type nodeOpt func(*corev1.Node)

func mkNode(name, zone string, opts ...nodeOpt) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue},
		}},
	}
	if zone != "" {
		n.Labels[DefaultZoneLabel] = zone
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

func readyStatus(s corev1.ConditionStatus) nodeOpt {
	return func(n *corev1.Node) {
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == corev1.NodeReady {
				n.Status.Conditions[i].Status = s
			}
		}
	}
}

func noReadyCondition(n *corev1.Node) { n.Status.Conditions = n.Status.Conditions[:1] }

func cordoned(n *corev1.Node) { n.Spec.Unschedulable = true }

func tainted(key string, effect corev1.TaintEffect) nodeOpt {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Effect: effect})
	}
}

func p(ord int32, n int32) vsched.Placement {
	return vsched.Placement{PodName: vsched.PodName(sts, ord), VReplicas: n}
}

func named(pod string, n int32) vsched.Placement {
	return vsched.Placement{PodName: pod, VReplicas: n}
}

func key(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: name} }

func src(name, rv string, vreplicas int32, ps ...vsched.Placement) *vsched.PlainVPod {
	return &vsched.PlainVPod{Key: key(name), VReplicas: vreplicas, Placements: ps, ResourceVersion: rv}
}

// cluster fills s with nodes (name -> zone) and bound pods (ordinal i on
// nodes[i]), and sets replicas to len(pods).
func cluster(s *State, nodes [][2]string, pods []string) {
	for _, n := range nodes {
		s.UpsertNode(mkNode(n[0], n[1]), t0)
	}
	for i, n := range pods {
		s.UpsertPod(mkPod(int32(i), n))
	}
	s.SetReplicas(int32(len(pods)))
}

// usedAll lists Used for ordinals [0, n).
func usedAll(s *State, n int32) []int32 {
	out := make([]int32, n)
	for i := range n {
		out[i] = s.Used(i)
	}
	return out
}

// freeAll lists Free for ordinals [0, n).
func freeAll(s *State, n int32) []int32 {
	out := make([]int32, n)
	for i := range n {
		out[i] = s.Free(i)
	}
	return out
}
