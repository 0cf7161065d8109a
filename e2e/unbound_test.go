//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/e2e/harness"
)

// unboundTaint keeps kube-scheduler from binding any pod (issue 20).
const unboundTaint = "e2e.vsched.dev/no-node"

// TestPodNeverBinds: a pod holding vreplicas is recreated while no node
// takes pods (every node tainted NoSchedule), so it stays without a node.
// Once the unavailable-pod grace passes, the controller logs that it waits
// for a node, and its vreplicas are placed on the other pods.
func TestPodNeverBinds(t *testing.T) {
	e := newEnv(t, 6*time.Minute, 1)
	_, s := e.placeSources(12, 6, 20)
	// Room on other pods: three more, and no compaction to take them back.
	e.applyAutoscaler(fmt.Sprintf(`min-replicas: "%d"`, s.replicas()+3), `compaction: "false"`)
	grown := s.replicas() + 3
	e.waitFor(fmt.Sprintf("three more pods (%d)", grown), func(s *snapshot) bool {
		return s.replicas() == grown && s.adapterSettled() && len(s.violations(checks{allPlaced: true, running: true, wantReplicas: -1})) == 0
	})
	s, err := e.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	on := perPod(s.sources...)
	pod, most := "", int32(0)
	for name, n := range on {
		if n > most || (n == most && name < pod) {
			pod, most = name, n
		}
	}
	e.taintAll(true)
	marks := e.logMarks()
	if err := e.cp.Kube.CoreV1().Pods(systemNS).Delete(e.ctx, pod, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.mark(fmt.Sprintf("%s (holding %d) deleted, no node takes it", pod, most))
	e.waitLogged(pod+" waits for a node", marks, func(l harness.LogEntry) bool {
		return l.Msg == autoscaler.LogPodUnbound && l.Fields["pod"] == pod
	})
	e.waitFor("vreplicas placed off the unbound pod", func(s *snapshot) bool {
		p := s.pods[pod]
		return p != nil && p.Spec.NodeName == "" && perPod(s.sources...)[pod] == 0 &&
			len(s.violations(checks{allPlaced: true, wantReplicas: -1})) == 0
	})
	e.taintAll(false)
	e.mark("taints removed")
}

// taintAll adds (or removes) unboundTaint on every node.
func (e *env) taintAll(on bool) {
	e.t.Helper()
	nodes, err := e.cp.Kube.CoreV1().Nodes().List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, n := range nodes.Items {
		var taints []corev1.Taint
		for _, tn := range n.Spec.Taints {
			if tn.Key != unboundTaint {
				taints = append(taints, tn)
			}
		}
		if on {
			taints = append(taints, corev1.Taint{Key: unboundTaint, Effect: corev1.TaintEffectNoSchedule})
		}
		n.Spec.Taints = taints
		if _, err := e.cp.Kube.CoreV1().Nodes().Update(e.ctx, &n, metav1.UpdateOptions{}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// applyAutoscaler applies e2e/testdata's config-autoscaler with the given
// "key: value" lines in place of its own.
func (e *env) applyAutoscaler(lines ...string) {
	e.t.Helper()
	cm, err := e.cp.Kube.CoreV1().ConfigMaps(systemNS).Get(e.ctx, "config-autoscaler", metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	patch := `{"data":{`
	for i, l := range lines {
		k, v, _ := strings.Cut(l, ": ")
		if i > 0 {
			patch += ","
		}
		patch += fmt.Sprintf("%q:%s", k, v)
	}
	patch += "}}"
	if _, err := e.cp.Kube.CoreV1().ConfigMaps(systemNS).Patch(e.ctx, cm.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}
