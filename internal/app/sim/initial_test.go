package sim

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
)

const withSources = `version: 1
cluster:
  zones: [zone-a, zone-b]
  statefulSet: {replicas: 2, capacity: 10}
sources:
  - source: ns/a
    vreplicas: 5
    placements: [{podName: adapter-0, vreplicas: 3}, {podName: adapter-1, vreplicas: 2}]
  - source: ns/b
    vreplicas: 4
    placements: [{podName: adapter-1, vreplicas: 1}]
`

// TestInitialSources: a scenario may start from placements (a snapshot);
// complete ones stay exactly as given, and the first reconcile places what
// is pending, as a controller starting up would.
func TestInitialSources(t *testing.T) {
	res := runScenario(t, withSources)
	if res.Initial == nil || len(res.Steps) != 0 {
		t.Fatalf("initial %v, %d steps", res.Initial, len(res.Steps))
	}
	a := res.Initial.Placements["ns/a"]
	want := []vsched.Placement{
		{PodName: "adapter-0", NodeName: "node-zone-a-0", ZoneName: "zone-a", VReplicas: 3},
		{PodName: "adapter-1", NodeName: "node-zone-b-0", ZoneName: "zone-b", VReplicas: 2},
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("ns/a moved (-given +now):\n%s", diff)
	}
	if got := vsched.TotalVReplicas(res.Initial.Placements["ns/b"]); got != 4 || res.Initial.Pending["ns/b"] != 0 {
		t.Errorf("ns/b: %d placed, %d pending", got, res.Initial.Pending["ns/b"])
	}
	res = runScenario(t, withSources+"steps:\n  - delete: {source: ns/a}\n")
	if _, ok := res.Steps[0].Placements["ns/a"]; ok || len(res.Steps[0].Placements) != 1 {
		t.Errorf("delete of an initial source: %v", res.Steps[0].Placements)
	}
}

func TestInitialSourcesProblems(t *testing.T) {
	_, ps := ParseScenario("s.yaml", []byte(strings.NewReplacer(
		"podName: adapter-0", "podName: other-0",
		"{podName: adapter-1, vreplicas: 1}", "{podName: adapter-1, vreplicas: 0}, {podName: adapter-1, vreplicas: 1}",
		"source: ns/b", "source: ns/a",
	).Replace(withSources)))
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	want := []string{
		`s.yaml:8: sources[0].placements[0].podName: "other-0" is not a pod of StatefulSet adapter; write adapter-ORDINAL`,
		`s.yaml:9: sources[1].source: source ns/a is listed twice`,
		`s.yaml:11: sources[1].placements[0].vreplicas: must be at least 1, not 0`,
		`s.yaml:11: sources[1].placements[1].podName: pod adapter-1 is listed twice`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
