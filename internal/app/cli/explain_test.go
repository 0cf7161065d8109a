package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vsched/vsched/internal/testkit/cmdtest"
)

// capped leaves vreplicas pending: one pod of capacity 2 for 4 vreplicas,
// and max-replicas 1 for the autoscaler's loop that advance runs.
const capped = `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 1, capacity: 2}
autoscaler: {max-replicas: 1}
steps:
  - schedule: {source: default/s, vreplicas: 4}
  - advance: 1m
`

// TestExplainHeaderCounts: the header counts what the decision was asked
// to place, what it placed and what is left pending; the requeue after
// "advance" was asked for the 2 pending vreplicas, not 1.
func TestExplainHeaderCounts(t *testing.T) {
	files := map[string]string{"s.yaml": capped}
	code, out, errOut := run(t, files, "explain", "-f", "s.yaml", "--source", "default/s")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `Most recent decision about default/s: step 2 "advance 1m0s", placed 0 of 2 vreplica(s) asked, 2 pending.`
	if first := strings.SplitN(out, "\n", 2)[0]; first != want {
		t.Errorf("header\n%s\nwant\n%s", first, want)
	}
	code, out, _ = run(t, files, "explain", "-f", "s.yaml", "--source", "default/s", "-o", "json")
	var ex struct {
		Asked, Placed, Pending int
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &ex) != nil || ex.Asked != 2 || ex.Placed != 0 || ex.Pending != 2 {
		t.Errorf("-o json: exit %d, %+v", code, ex)
	}
}

// TestExplainCandidatesShowNodeAndZone pins a small explanation whole.
func TestExplainCandidatesShowNodeAndZone(t *testing.T) {
	files := map[string]string{"s.yaml": scenario}
	code, out, _ := run(t, files, "explain", "-f", "s.yaml", "--source", "default/a")
	want := `Most recent decision about default/a: step 1 "first", placed 3 of 3 vreplica(s) asked, 0 pending.
Candidates are marked * for the winner, with their node and zone; a rejected pod names the filter and its reason; scores read "plugin score xweight".

default/a: place decision
vreplica 1 -> adapter-0
  * adapter-0    node-zone-a-0 zone-a total 1500  AvailabilityZonePriority 100 x10, AvailabilityNodePriority 100 x4, InUsePodPriority 0 x2, EvenPodSpread 100 x1
    adapter-1    node-zone-b-0 zone-b total 1500  AvailabilityZonePriority 100 x10, AvailabilityNodePriority 100 x4, InUsePodPriority 0 x2, EvenPodSpread 100 x1
vreplica 2 -> adapter-1
    adapter-0    node-zone-a-0 zone-a total 715   AvailabilityZonePriority 4 x10, AvailabilityNodePriority 95 x4, InUsePodPriority 100 x2, EvenPodSpread 95 x1
  * adapter-1    node-zone-b-0 zone-b total 1500  AvailabilityZonePriority 100 x10, AvailabilityNodePriority 100 x4, InUsePodPriority 0 x2, EvenPodSpread 100 x1
vreplica 3 -> adapter-0
  * adapter-0    node-zone-a-0 zone-a total 1700  AvailabilityZonePriority 100 x10, AvailabilityNodePriority 100 x4, InUsePodPriority 100 x2, EvenPodSpread 100 x1
    adapter-1    node-zone-b-0 zone-b total 1700  AvailabilityZonePriority 100 x10, AvailabilityNodePriority 100 x4, InUsePodPriority 100 x2, EvenPodSpread 100 x1
`
	if code != ExitOK || out != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, out, want)
	}
	_, out, _ = run(t, files, "explain", "-f", "s.yaml", "--source", "default/a", "-o", "json")
	var ex struct {
		Pods map[string]struct{ Node, Zone string } `json:"pods"`
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil || ex.Pods["adapter-1"].Node != "node-zone-b-0" || ex.Pods["adapter-1"].Zone != "zone-b" {
		t.Errorf("-o json pods: %v %+v", err, ex.Pods)
	}
}

// steps3 makes three decisions about default/s, in steps 1, 2 and 4.
const steps3 = `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 2, capacity: 10}
steps:
  - schedule: {source: default/s, vreplicas: 2}
  - name: grow
    schedule: {source: default/s, vreplicas: 5}
  - schedule: {source: default/other, vreplicas: 3}
  - name: shrink
    schedule: {source: default/s, vreplicas: 1}
`

func TestExplainStepAndAll(t *testing.T) {
	files := map[string]string{"s.yaml": steps3}
	code, out, errOut := run(t, files, "explain", "-f", "s.yaml", "--source", "default/s", "--step", "2")
	if code != ExitOK || !strings.HasPrefix(out, `Decision about default/s: step 2 "grow", placed 3 of 3 vreplica(s) asked, 0 pending.`) {
		t.Errorf("--step 2: exit %d, stderr %q\n%s", code, errOut, out)
	}
	code, out, _ = run(t, files, "explain", "-f", "s.yaml", "--source", "default/s", "--all")
	var heads []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Decision ") {
			heads = append(heads, l)
		}
	}
	want := []string{
		`Decision 1 of 3 about default/s: step 1 "schedule default/s=2", placed 2 of 2 vreplica(s) asked, 0 pending.`,
		`Decision 2 of 3 about default/s: step 2 "grow", placed 3 of 3 vreplica(s) asked, 0 pending.`,
		`Decision 3 of 3 about default/s: step 4 "shrink", removed 4 of 4 vreplica(s) asked, 0 pending.`,
	}
	if code != ExitOK || strings.Join(heads, "\n") != strings.Join(want, "\n") {
		t.Errorf("--all: exit %d, headers\n%s\nwant\n%s", code, strings.Join(heads, "\n"), strings.Join(want, "\n"))
	}
	code, out, _ = run(t, files, "explain", "-f", "s.yaml", "--source", "default/s", "--all", "-o", "json")
	var all struct {
		Decisions []struct {
			Step   int    `json:"step"`
			Mode   string `json:"mode"`
			Placed int    `json:"placed"`
		} `json:"decisions"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &all) != nil || len(all.Decisions) != 3 || all.Decisions[2].Step != 4 || all.Decisions[2].Mode != "remove" || all.Decisions[2].Placed != 4 {
		t.Errorf("--all -o json: exit %d, %+v", code, all)
	}

	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--step", "3"}, ExitInvalid, "vsched explain: source default/s: the scheduler made no decision about it in step 3; it made one in step(s) 1, 2, 4\n"},
		{[]string{"--step", "5"}, ExitUsage, "vsched explain: --step 5: the scenario's steps are 1 to 4\n"},
		{[]string{"--step", "1", "--all"}, ExitUsage, "vsched explain: --step and --all: give one of them\n"},
	} {
		code, _, errOut := run(t, files, append([]string{"explain", "-f", "s.yaml", "--source", "default/s"}, tc.args...)...)
		if code != tc.code || !strings.HasPrefix(errOut, tc.err) {
			t.Errorf("%v: exit %d, stderr %q, want %d %q", tc.args, code, errOut, tc.code, tc.err)
		}
	}
}

// TestExplainInitialDecisions: --step 0 selects the decisions made while
// loading the scenario's initial sources (a snapshot's), --all lists them
// first, and a scenario without sources says it has no step 0.
func TestExplainInitialDecisions(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "snapshot.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"snapshot.yaml": string(data), "s.yaml": steps3}
	code, out, errOut := run(t, files, "explain", "-f", "snapshot.yaml", "--source", "shop/new", "--step", "0")
	if code != ExitOK {
		t.Fatalf("--step 0: exit %d, stderr %q", code, errOut)
	}
	cmdtest.Golden(t, filepath.Join("testdata", "golden", "explain-initial.txt"), []byte(out))
	code, out, errOut = run(t, files, "explain", "-f", "snapshot.yaml", "--source", "shop/new", "--all")
	if code != ExitOK {
		t.Fatalf("--all: exit %d, stderr %q", code, errOut)
	}
	cmdtest.Golden(t, filepath.Join("testdata", "golden", "explain-initial-all.txt"), []byte(out))

	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"-f", "snapshot.yaml", "--source", "shop/new", "--step", "1"}, ExitInvalid,
			"vsched explain: source shop/new: the scheduler made no decision about it in step 1; it made one in step(s) 0 (the initial state), 2\n"},
		{[]string{"-f", "snapshot.yaml", "--source", "shop/new", "--step", "5"}, ExitUsage,
			"vsched explain: --step 5: the scenario's steps are 0 (its initial sources) to 4\n"},
		{[]string{"-f", "s.yaml", "--source", "default/s", "--step", "0"}, ExitUsage,
			"vsched explain: --step 0: the scenario has no initial sources; its steps are 1 to 4\n"},
	} {
		code, _, errOut := run(t, files, append([]string{"explain"}, tc.args...)...)
		if code != tc.code || !strings.HasPrefix(errOut, tc.err) {
			t.Errorf("%v: exit %d, stderr %q, want %d %q", tc.args, code, errOut, tc.code, tc.err)
		}
	}
}

// burst is a source that a signal step creates and a traffic step takes up
// in panic mode: 250 then 650 of lag at 100 per vreplica.
const burst = `version: 1
cluster:
  zones: [zone-a, zone-b]
  statefulSet: {replicas: 1, capacity: 2}
autoscaler: {min-replicas: 1, max-replicas: 20}
steps:
  - signal: {source: k/a, shape: step, from: 250, to: 650, after: 30s}
  - traffic: {for: 30s, every: 10s}
  - traffic: {for: 30s, every: 10s}
`

// TestExplainVReplicaDecision: a signalled source's explanation starts with
// the source autoscaler's decision and its numbers, the last one up to
// --step; the scheduler's follows.
func TestExplainVReplicaDecision(t *testing.T) {
	files := map[string]string{"s.yaml": burst}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--step", "2"}, `Source k/a: vreplicas decided by the source autoscaler in step 2, at 30s
  vreplicas: 3 -> 7, mode panic
  signal: 650, target 100 per vreplica (activation above 0)
  stable window 1m0s: average 383.333, ceil(383.333 / 100) = 4
  panic window 6s: average 650, ceil(650 / 100) = 7; panic from 2 x 300 = 600
  rate limits: from 3, at most 3000 (x1000 up), at least 1 (/2 down); scale-down delay 0s
  bounds: min 0, max 50; no partition cap applied

`},
		{nil, `Source k/a: vreplicas decided by the source autoscaler in step 3, at 1m0s
  vreplicas: 7 -> 7, mode panic
  signal: 650, target 100 per vreplica (activation above 0)
  stable window 1m0s: average 516.667, ceil(516.667 / 100) = 6
  panic window 6s: average 650, ceil(650 / 100) = 7; panic from 2 x 700 = 1400
  rate limits: from 7, at most 7000 (x1000 up), at least 3 (/2 down); scale-down delay 0s
  bounds: min 0, max 50; no partition cap applied

`},
	}
	for _, tc := range tests {
		args := append([]string{"explain", "-f", "s.yaml", "--source", "k/a"}, tc.args...)
		code, out, errOut := run(t, files, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		got, _, _ := strings.Cut(out, "Decision about")
		got, _, _ = strings.Cut(got, "Most recent decision about")
		if got != tc.want {
			t.Errorf("%v:\n%s\nwant\n%s", tc.args, got, tc.want)
		}
	}
}
