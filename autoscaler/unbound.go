package autoscaler

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched"
)

// ReasonPodUnbound is the Event recorded on the StatefulSet when a pod
// below its size has waited for a node longer than the unavailable-pod
// grace, and stops counting as room.
const ReasonPodUnbound = "PodUnbound"

// LogPodUnbound is the message of the autoscaler's log line (Warn, with the
// fields pod, since and grace) for a pod that has waited for a node longer
// than the unavailable-pod grace, once per pod.
const LogPodUnbound = "vsched autoscaler: a pod has waited for a node longer than the grace; not counted as room"

// UnboundPod is a pod below the StatefulSet's size that has waited for a
// node longer than the unavailable-pod grace. It is no longer counted as
// a starting pod with room: what would wait for it is in Report.Unplaced,
// and the fit grows the StatefulSet when other pods can bind.
type UnboundPod struct {
	// Pod is the pod's name; Since when the scheduler first saw it
	// without a node.
	Pod   string
	Since time.Time
}

// unboundPods lists the cycle's UnboundPod, by ordinal, and records an
// Event and a log line for each the previous cycle did not report.
func (a *Autoscaler) unboundPods(c *cycle) []UnboundPod {
	ords := c.base.UnboundPast(c.dec.Time, c.cfg.UnavailablePodGrace)
	if len(ords) == 0 {
		a.unboundReported = nil
		return nil
	}
	out := make([]UnboundPod, 0, len(ords))
	reported := make(map[UnboundPod]bool, len(ords))
	for _, ord := range ords {
		u := UnboundPod{Pod: vsched.PodName(a.key.Name, ord), Since: c.base.PodUnboundSince(ord)}
		out = append(out, u)
		reported[u] = true
		if a.unboundReported[u] {
			continue
		}
		c.log.Warnw(LogPodUnbound, "pod", u.Pod, "since", u.Since, "grace", c.cfg.UnavailablePodGrace)
		a.event(c.set, corev1.EventTypeWarning, ReasonPodUnbound, "pod %s has waited for a node since %s, longer than the grace of %v; its room is not counted",
			u.Pod, u.Since.Format(time.RFC3339), c.cfg.UnavailablePodGrace)
	}
	a.unboundReported = reported
	return out
}

// unboundNote is what the cycle's reason adds about pods that wait for a
// node, "" when none does.
func unboundNote(pods []UnboundPod) string {
	if len(pods) == 0 {
		return ""
	}
	names := make([]string, len(pods))
	for i, u := range pods {
		names[i] = fmt.Sprintf("%s since %s", u.Pod, u.Since.Format(time.RFC3339))
	}
	return "not counted as room, waiting for a node longer than the grace: " + strings.Join(names, ", ")
}
