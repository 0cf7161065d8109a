//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/vsched/vsched/e2e/harness"
	"github.com/vsched/vsched/internal/app/sample/controller"
	"github.com/vsched/vsched/statefulset"
)

// An assertion that follows a change (a cordon, a node or zone failure, a
// config edit, a restart, a leader change) first waits until the controller
// says it has seen the change: a line of its log, written after the change
// reached the state its decisions read. Asserting earlier races the
// controller's informers, which on a loaded machine can be seconds behind.

// logMarks is where each controller's log stood before a change: only the
// lines after it are evidence that the change was seen.
type logMarks map[*harness.Controller]int64

// logMarks marks every running controller's log as it is now.
func (e *env) logMarks() logMarks {
	m := logMarks{}
	for _, c := range e.ctrls {
		if c.Running() {
			m[c] = c.LogOffset()
		}
	}
	return m
}

// sinceStart marks c's log where its last start began.
func sinceStart(c *harness.Controller) logMarks {
	return logMarks{c: c.StartOffset()}
}

// logMatch accepts the log entry that shows a change was seen.
type logMatch func(harness.LogEntry) bool

// waitLogged waits until every controller of marks that still runs has
// logged, after its mark, an entry match accepts, and returns the entry of
// each.
func (e *env) waitLogged(what string, marks logMarks, match logMatch) map[*harness.Controller]harness.LogEntry {
	e.t.Helper()
	found := map[*harness.Controller]harness.LogEntry{}
	waiting := func() []string {
		var out []string
		for c, from := range marks {
			if _, ok := found[c]; ok || !c.Running() {
				continue
			}
			entries, err := c.LogEntries(from)
			if err != nil {
				out = append(out, fmt.Sprintf("%s: %v", c.Identity, err))
				continue
			}
			if i := slices.IndexFunc(entries, match); i >= 0 {
				found[c] = entries[i]
				continue
			}
			out = append(out, c.Identity)
		}
		slices.Sort(out)
		return out
	}
	var left []string
	err := wait.PollUntilContextCancel(e.ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		left = waiting()
		return len(left) == 0, nil
	})
	if err != nil {
		e.t.Fatalf("waiting for the controller to log that it saw %s: %v (still waiting for %s)", what, err, strings.Join(left, ", "))
	}
	if len(found) == 0 {
		e.t.Fatalf("waiting for the controller to log that it saw %s: no controller is running", what)
	}
	e.mark("controller saw " + what)
	return found
}

// nodeSeen matches the scheduler's line saying it sees the node as
// schedulable (or not).
func nodeSeen(node string, schedulable bool) logMatch {
	return func(l harness.LogEntry) bool {
		return l.Msg == statefulset.LogNodeAvailability && l.Fields["node"] == node && l.Fields["schedulable"] == schedulable
	}
}

// startedLeading matches knative's leader election line for a promotion,
// written once the lease is held, just before the scheduler's Promote. (The
// scheduler's own "vsched state loaded" is not written when a periodic
// resync happens to make the term's first load.)
func startedLeading(l harness.LogEntry) bool { return strings.Contains(l.Msg, "has started leading") }

// sourcesStarting and sourcesSynced match the sample controller's lines
// around the source informer's start.
func sourcesStarting(l harness.LogEntry) bool { return l.Msg == controller.LogSourcesStarting }
func sourcesSynced(l harness.LogEntry) bool   { return l.Msg == controller.LogSourcesSynced }

// schedulerConfigApplied matches the config store's line for a new
// config-scheduler whose priorities are exactly priorities, by name.
func schedulerConfigApplied(priorities ...string) logMatch {
	return func(l harness.LogEntry) bool {
		if l.Msg != "scheduling configuration updated" || l.Fields["configmap"] != systemNS+"/config-scheduler" {
			return false
		}
		got, _ := l.Fields["priorities"].([]any)
		if len(got) != len(priorities) {
			return false
		}
		for i, p := range priorities {
			// The store logs "Name(weight N)".
			name, _, _ := strings.Cut(fmt.Sprint(got[i]), "(")
			if name != p {
				return false
			}
		}
		return true
	}
}

// waitNodesSeen waits until every controller's scheduler sees each node as
// schedulable (or not).
func (e *env) waitNodesSeen(marks logMarks, schedulable bool, nodes ...string) {
	e.t.Helper()
	for _, n := range nodes {
		e.waitLogged(fmt.Sprintf("%s schedulable=%v", n, schedulable), marks, nodeSeen(n, schedulable))
	}
}

// failNodes freezes the nodes' kwok and waits until the API server shows
// them NotReady and tainted and every controller's scheduler has seen them
// unavailable.
func (e *env) failNodes(names ...string) {
	e.t.Helper()
	e.setNodesHealthy(false, names)
}

// recoverNodes resumes the nodes' kwok and waits until they are healthy and
// every controller's scheduler has seen them schedulable again.
func (e *env) recoverNodes(names ...string) {
	e.t.Helper()
	e.setNodesHealthy(true, names)
}

func (e *env) setNodesHealthy(healthy bool, names []string) {
	e.t.Helper()
	marks := e.logMarks()
	for _, n := range names {
		if healthy {
			e.recoverNode(n)
		} else {
			e.failNode(n)
		}
	}
	for _, n := range names {
		e.waitNode(n, healthy)
	}
	e.waitNodesSeen(marks, healthy, names...)
}
