package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func runScenario(t *testing.T, text string) *Result {
	t.Helper()
	s, ps := ParseScenario("s.yaml", []byte(text))
	if len(ps) > 0 {
		t.Fatalf("ParseScenario: %v", ps)
	}
	res, _, err := Run(context.Background(), s, Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// TestDeleteList: delete takes a list as schedule does.
func TestDeleteList(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 1, capacity: 10}
steps:
  - schedule:
      - {source: ns/a, vreplicas: 1}
      - {source: ns/b, vreplicas: 1}
      - {source: ns/c, vreplicas: 1}
  - delete: [{source: ns/a}, {source: ns/c}]
  - delete: {source: ns/b}
`)
	if got := res.Steps[1].Action; got != "delete ns/a ns/c" {
		t.Errorf("action %q", got)
	}
	var left []string
	for k := range res.Steps[1].Placements {
		left = append(left, k)
	}
	if diff := cmp.Diff([]string{"ns/b"}, left); diff != "" {
		t.Errorf("sources after the delete (-want +got):\n%s", diff)
	}
	if len(res.Steps[2].Placements) != 0 {
		t.Errorf("after the last delete: %v", res.Steps[2].Placements)
	}
}

// TestCordonZone: cordon and uncordon take a zone as fail and recover do.
func TestCordonZone(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [zone-a, zone-b]
  nodesPerZone: 2
  statefulSet: {replicas: 4, capacity: 10}
steps:
  - cordon: {zone: zone-a}
  - schedule: {source: ns/a, vreplicas: 4}
  - uncordon: {zone: zone-a}
`)
	if got := res.Steps[0].Action; got != "cordon zone zone-a" {
		t.Errorf("action %q", got)
	}
	status := map[string]string{}
	for _, n := range res.Steps[1].Nodes {
		status[n.Name] = n.Status
	}
	want := map[string]string{"node-zone-a-0": NodeCordoned, "node-zone-a-1": NodeCordoned, "node-zone-b-0": NodeReady, "node-zone-b-1": NodeReady}
	if diff := cmp.Diff(want, status); diff != "" {
		t.Errorf("nodes after cordon zone (-want +got):\n%s", diff)
	}
	for _, p := range res.Steps[1].Placements["ns/a"] {
		if p.ZoneName != "zone-b" {
			t.Errorf("a vreplica went to the cordoned zone: %+v", p)
		}
	}
	for _, n := range res.Steps[2].Nodes {
		if n.Status != NodeReady {
			t.Errorf("after uncordon zone: %s is %s", n.Name, n.Status)
		}
	}
}

func TestDeleteAndCordonProblems(t *testing.T) {
	base := "version: 1\ncluster:\n  zones: [zone-a]\n  statefulSet: {capacity: 10}\nsteps:\n  - schedule: {source: ns/a, vreplicas: 1}\n"
	tests := []struct{ step, want string }{
		{"  - delete: []\n", `s.yaml:7: step 2: delete: lists no source`},
		{"  - delete: [{source: ns/a}, {source: ns/a}]\n", `s.yaml:7: step 2: delete[1].source: source ns/a is listed twice in this step`},
		{"  - delete: [{source: ns/a}, {source: ns/x}]\n", `s.yaml:7: step 2: delete[1].source: source ns/x does not exist at this step (did you mean "ns/a"?)`},
		{"  - cordon: {zone: zone-q}\n", `s.yaml:7: step 2: cordon.zone: unknown zone "zone-q" (did you mean "zone-a"?); the zones are zone-a`},
		{"  - uncordon: {zone: zone-a, node: node-zone-a-0}\n", `s.yaml:7: step 2: uncordon: give a node or a zone, not both`},
	}
	for _, tc := range tests {
		_, ps := ParseScenario("s.yaml", []byte(base+tc.step))
		var got []string
		for _, p := range ps {
			got = append(got, p.String())
		}
		if strings.Join(got, "\n") != tc.want {
			t.Errorf("%q:\n%s\nwant\n%s", tc.step, strings.Join(got, "\n"), tc.want)
		}
	}
}

// TestCompactionCycles: a compact step's JSON shows each autoscaler cycle,
// the last one changing nothing and leaving the step's replicas.
func TestCompactionCycles(t *testing.T) {
	res, _, err := Run(context.Background(), loadExample(t, "compact.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, st := range res.Steps {
		if !strings.HasPrefix(st.Action, "compact") {
			if len(st.Cycles) > 0 {
				t.Errorf("step %q (%s) has cycles", st.Name, st.Action)
			}
			continue
		}
		seen++
		if len(st.Cycles) == 0 {
			t.Fatalf("compact step %q has no cycles", st.Name)
		}
		for i, c := range st.Cycles {
			if c.Cycle != i+1 || len(c.Notes) == 0 {
				t.Errorf("step %q cycle %d: %+v", st.Name, i+1, c)
			}
		}
		last := st.Cycles[len(st.Cycles)-1]
		if last.Moved != 0 || last.Replicas != st.Replicas {
			t.Errorf("step %q: last cycle %+v, step replicas %d", st.Name, last, st.Replicas)
		}
		if n := len(st.Cycles); n > 1 && !slices.Contains(st.Notes, fmt.Sprintf("compaction settled after %d autoscaler cycle(s)", n)) {
			t.Errorf("step %q: %d cycles, notes %v", st.Name, n, st.Notes)
		}
	}
	if seen == 0 {
		t.Fatal("compact.yaml has no compact step")
	}
}

// TestZoneSkewDuringZoneFailure: a source that a zone failure left at
// 3 / 0 / 3 shows zoneSkew 0 (over the healthy zones) and zoneSkewAll 3
// (over every zone, the failed one holding nothing).
func TestZoneSkewDuringZoneFailure(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [zone-a, zone-b, zone-c]
  statefulSet: {replicas: 3, capacity: 10}
autoscaler: {unavailable-pod-grace: 1m}
steps:
  - schedule: {source: ns/s, vreplicas: 6}
  - fail: {zone: zone-b}
  - advance: 2m
  - autoscale: {}
`)
	type skews struct {
		Placements                          string
		ZoneSkew, ZoneSkewAll, ZoneSkewRoom int32
	}
	var got []skews
	for _, st := range res.Steps {
		var ps []string
		for _, p := range st.Placements["ns/s"] {
			ps = append(ps, fmt.Sprintf("%s=%d", p.ZoneName, p.VReplicas))
		}
		m := st.Metrics.Sources["ns/s"]
		got = append(got, skews{strings.Join(ps, " "), m.ZoneSkew, m.ZoneSkewAll, m.ZoneSkewRoom})
	}
	want := []skews{
		{"zone-a=2 zone-b=2 zone-c=2", 0, 0, 0},
		{"zone-a=2 zone-b=2 zone-c=2", 0, 2, 0}, // zone-b's 2 run nowhere
		{"zone-a=3 zone-c=3", 0, 3, 0},          // evicted by the autoscaler's loop at 1m: 3 / 0 / 3
		{"zone-a=3 zone-c=3", 0, 3, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placements and zone skews per step (-want +got):\n%s", diff)
	}
}
