package statefulset

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"knative.dev/pkg/logging"
)

// TestSeenChangesLoggedOnce: the informer handlers log each change of a
// node's availability and of the StatefulSet's size once, after the state
// holds it, and stay quiet on updates that change neither (heartbeats,
// resyncs). A node first seen unavailable is logged; one first seen fine is
// not.
func TestSeenChangesLoggedOnce(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	ctx := logging.WithLogger(context.Background(), zap.New(core).Sugar())
	c := zones3(t, 3)
	c.cordon("node-c", true)
	if _, err := c.tryStart(ctx); err != nil {
		t.Fatal(err)
	}
	c.cordon("node-a", true)
	c.cordon("node-a", true) // no change
	c.setReady("node-b", false)
	c.cordon("node-a", false)
	c.setReady("node-b", true)
	c.scale(5)
	c.scale(5) // no change
	c.scale(2)
	// The last change of each informer: once it is logged, every earlier
	// one of the same informer is (a handler sees its events in order).
	c.cordon("node-c", false)
	waitLogged(t, logs, LogNodeAvailability, "node-c schedulable=true unavailable=false reason=")
	waitLogged(t, logs, LogReplicasSeen, "from=5 replicas=2")

	want := map[string][]string{
		LogNodeAvailability: {
			"node-c schedulable=false unavailable=false reason=node is cordoned",
			"node-a schedulable=false unavailable=false reason=node is cordoned",
			"node-b schedulable=false unavailable=true reason=tainted node.kubernetes.io/unreachable",
			"node-a schedulable=true unavailable=false reason=",
			"node-b schedulable=true unavailable=false reason=",
			"node-c schedulable=true unavailable=false reason=",
		},
		LogReplicasSeen: {"from=-1 replicas=3", "from=3 replicas=5", "from=5 replicas=2"},
	}
	got := map[string][]string{}
	for msg := range want {
		got[msg] = seenLines(logs, msg)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("seen lines (-want +got):\n%s", d)
	}
}

// seenLines renders the entries logged with msg, in order.
func seenLines(logs *observer.ObservedLogs, msg string) []string {
	var out []string
	for _, e := range logs.FilterMessage(msg).All() {
		f := e.ContextMap()
		if msg == LogNodeAvailability {
			out = append(out, fmt.Sprintf("%v schedulable=%v unavailable=%v reason=%v", f["node"], f["schedulable"], f["unavailable"], f["reason"]))
		} else {
			out = append(out, fmt.Sprintf("from=%v replicas=%v", f["from"], f["replicas"]))
		}
	}
	return out
}

// waitLogged waits for the handler goroutine to log line (the state is
// updated before the line is written, so the fixture's sync does not cover
// it).
func waitLogged(t *testing.T, logs *observer.ObservedLogs, msg, line string) {
	t.Helper()
	deadline := time.Now().Add(syncTimeout)
	for {
		for _, l := range seenLines(logs, msg) {
			if l == line {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q never logged %q; got %q", msg, line, seenLines(logs, msg))
		}
		time.Sleep(100 * time.Microsecond)
	}
}
