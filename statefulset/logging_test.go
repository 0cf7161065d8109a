package statefulset_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// logScenario builds a scheduler and its autoscaler on a memcluster with
// logger l (the zero Logger: none), loads the state, schedules a source that
// leaves vreplicas pending and runs an autoscaler cycle: every step that
// logs at Info.
func logScenario(t *testing.T, l logr.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a", "b"}, Replicas: 2, Capacity: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	sources := memcluster.NewSources()
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sched, err := statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: c.Capacity(),
		Lister: sources.List, ListerSynced: sources.HasSynced, Informers: statefulset.InformersFromFactory(c.InformerFactory()),
		Profiles: profiles, AlwaysLeader: true, Clock: c.Clock(), Logger: l,
	})
	if err != nil {
		t.Fatal(err)
	}
	auto, err := autoscaler.New(ctx, autoscaler.Options{Scheduler: sched, Client: c.Client(), Clock: c.Clock(), Cache: autoscaler.CacheFromFactory(c.InformerFactory())})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "ns", Name: "src"}
	if _, err := sources.Create(key, 9); err != nil {
		t.Fatal(err)
	}
	if _, err := sources.Reconcile(ctx, sched, key); err == nil {
		t.Fatal("Reconcile placed 9 vreplicas on 4 slots")
	}
	if _, err := auto.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestNoLoggerWritesNothing: without a logger in the context or the Config,
// the scheduler and the autoscaler write nothing at all (knative's
// FromContext alone would fall back to JSON on stderr). The scenario runs
// in a process of its own, whose stdout and stderr are the test's.
func TestNoLoggerWritesNothing(t *testing.T) {
	if os.Getenv("VSCHED_LOG_SCENARIO") == "1" {
		logScenario(t, logr.Logger{})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoLoggerWritesNothing$")
	cmd.Env = append(os.Environ(), "VSCHED_LOG_SCENARIO=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("scenario: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	// "PASS" is the test binary's own line.
	if got := strings.TrimSpace(stdout.String()); got != "PASS" || stderr.Len() > 0 {
		t.Errorf("the scenario wrote output with no logger given:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}

// TestLogrLoggerReceivesLines: a logr.Logger in Config receives the
// scheduler's and the autoscaler's lines, and no Info line names a single
// decision (those are at V(1)).
func TestLogrLoggerReceivesLines(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	// Informer handlers log from their own goroutines.
	l := funcr.New(func(_, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{})
	logScenario(t, l)
	mu.Lock()
	joined := strings.Join(lines, "\n")
	mu.Unlock()
	for _, want := range []string{`"msg"="vsched scheduler created"`, `"msg"="vsched state loaded"`, `"msg"="vsched autoscaler created"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("logr lines lack %s:\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "vreplicas pending") {
		t.Errorf("a decision logged at Info:\n%s", joined)
	}
}
