//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/e2e/harness"
)

// The scenarios named TestMetricsAPI* run the resource metrics pipeline
// (harness.Options.Metrics: metrics-server behind the aggregation layer,
// kwok simulating each adapter pod's usage from its annotations) and the
// controller with --metrics-api.
const metricsAPIPrefix = "TestMetricsAPI"

// controlPlaneOptions are the harness options of t's scenario.
func controlPlaneOptions(t *testing.T) harness.Options {
	return harness.Options{
		Zones: []string{"zone-a", "zone-b", "zone-c"}, NodesPerZone: 2,
		Metrics: strings.HasPrefix(t.Name(), metricsAPIPrefix),
	}
}

// The adapter's containers request 10m of cpu (deploy/sample): usage is
// set per pod in millicores over that.
const adapterCPURequestMilli = 10

// setPodUsage sets a pod's simulated cpu and memory ("" removes it: 1m and
// 1Mi). kwok reads the annotations at each scrape; metrics-server reports
// the cpu as a rate over its resolution, so the API shows a change one or
// two resolutions later.
func (e *env) setPodUsage(pod, cpu, memory string) {
	e.t.Helper()
	value := func(v string) string {
		if v == "" {
			return "null"
		}
		return fmt.Sprintf("%q", v)
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s,%q:%s}}}`,
		harness.UsageCPUAnnotation, value(cpu), harness.UsageMemoryAnnotation, value(memory))
	if _, err := e.cp.Kube.CoreV1().Pods(systemNS).Patch(e.ctx, pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("setting the usage of %s: %v", pod, err)
	}
}

// setAllUsage sets the usage of every adapter pod there is now, and
// returns when (before the first patch: the earliest the controller can
// see it).
func (e *env) setAllUsage(cpu string) (time.Time, []string) {
	e.t.Helper()
	pods, err := e.cp.Kube.CoreV1().Pods(systemNS).List(e.ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + adapterName})
	if err != nil {
		e.t.Fatal(err)
	}
	at := time.Now()
	var names []string
	for _, p := range pods.Items {
		e.setPodUsage(p.Name, cpu, "")
		names = append(names, p.Name)
	}
	e.mark(fmt.Sprintf("cpu %q on %d pods", cpu, len(names)))
	return at, names
}

// triggersConfig is config-autoscaler's policy: triggers with one cpu
// trigger per list, as the "key: value" lines applyAutoscaler takes.
func triggersConfig(up, down string, cooldown time.Duration, maxReplicas int32) []string {
	triggers := fmt.Sprintf(`{"up":{"triggers":[%s],"cooldown":"%v"},"down":{"triggers":[%s],"cooldown":"%v"}}`, up, cooldown, down, cooldown)
	return []string{`policy: "triggers"`, "triggers: " + fmt.Sprintf("%q", triggers), fmt.Sprintf(`max-replicas: "%d"`, maxReplicas)}
}

// scaled matches the autoscaler's line for a scale-up by a cpu trigger
// (its reason names the trigger), or for a scale-down: under the triggers
// policy only a down trigger asks for fewer pods (its line says what the
// shrink does, "idle capacity").
func scaled(up bool) logMatch {
	if !up {
		return func(l harness.LogEntry) bool { return l.Msg == "vsched autoscaler: scaled down" }
	}
	return func(l harness.LogEntry) bool {
		return l.Msg == "vsched autoscaler: scaled up" && strings.Contains(fmt.Sprint(l.Fields["reason"]), "cpu trigger")
	}
}

// loggedAt is when the controller wrote a line (knative's encoder's
// timestamp), for the lower bounds on when it acted.
func (e *env) loggedAt(l harness.LogEntry) time.Time {
	e.t.Helper()
	for _, k := range []string{"timestamp", "ts"} {
		if s, ok := l.Fields[k].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				return t
			}
		}
	}
	e.t.Fatalf("log line %q has no timestamp: %v", l.Msg, l.Fields)
	return time.Time{}
}

// usageChange is where a change that should turn the usage unknown (or
// known) starts: the controller's log and the time (Event times are whole
// seconds).
type usageChange struct {
	marks logMarks
	since time.Time
}

func (e *env) usageChange() usageChange {
	return usageChange{marks: e.logMarks(), since: time.Now().Add(-time.Second)}
}

// waitUsageState waits for the controller's line, after the change, saying
// the usage became unknown (or known again), and for its Event.
func (e *env) waitUsageState(c usageChange, known bool) {
	e.t.Helper()
	marks, since := c.marks, c.since
	msg, reason, typ := autoscaler.LogUsageUnavailable, autoscaler.ReasonUsageUnavailable, corev1.EventTypeWarning
	if known {
		msg, reason, typ = autoscaler.LogUsageAvailable, autoscaler.ReasonUsageAvailable, corev1.EventTypeNormal
	}
	e.waitLogged(reason, marks, func(l harness.LogEntry) bool { return l.Msg == msg })
	e.waitFor(reason+" Event on the StatefulSet", func(*snapshot) bool {
		evs, err := e.cp.Kube.CoreV1().Events(systemNS).List(e.ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=StatefulSet,involvedObject.name=" + adapterName + ",reason=" + reason})
		if err != nil {
			return false
		}
		for _, ev := range evs.Items {
			if ev.Type == typ && !ev.LastTimestamp.Time.Before(since) {
				return true
			}
		}
		return false
	})
}

// lowestReplicas is the least spec.replicas the watch saw since it
// started (-1: none).
func (w *statusWatch) lowestReplicas() int32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	low := int32(-1)
	for _, v := range w.history {
		if v.source == "" && (low < 0 || v.replicas < low) {
			low = v.replicas
		}
	}
	return low
}

// setUsageFromPlacements sets every adapter pod's memory to what its
// vreplicas cost, by source name (a source not named costs nothing), as
// the placements of the snapshot stand, and returns it per pod. For the
// hot-pod scenario: a heavy source makes its pods hot, and calling it again
// after they shed vreplicas cools them.
func (e *env) setUsageFromPlacements(s *snapshot, costPerVReplica map[string]resource.Quantity) map[string]resource.Quantity {
	e.t.Helper()
	perPod := map[string]resource.Quantity{}
	for name := range s.pods {
		perPod[name] = resource.Quantity{}
	}
	for _, src := range s.sources {
		cost, ok := costPerVReplica[src.Name]
		if !ok {
			continue
		}
		for _, p := range src.Status.Placements {
			q := perPod[p.PodName]
			for range p.VReplicas {
				q.Add(cost)
			}
			perPod[p.PodName] = q
		}
	}
	for pod, q := range perPod {
		mem := ""
		if !q.IsZero() {
			mem = q.String()
		}
		e.setPodUsage(pod, "", mem)
	}
	return perPod
}
