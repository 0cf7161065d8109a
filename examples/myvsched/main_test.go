package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/internal/app/sim"
	"github.com/vsched/vsched/internal/testkit/cmdtest"
)

// TestMain lets the test binary stand in for myvsched (internal/testkit/cmdtest).
func TestMain(m *testing.M) { cmdtest.Main(m, "MYVSCHED_RUN_MAIN", "myvsched", main) }

func myvsched(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return cmdtest.Run(t, "MYVSCHED_RUN_MAIN", args...)
}

// TestTeamPluginRuns: the team's vsched knows AvoidPods; it validates the
// scenario naming it, and the simulation keeps adapter-0 empty until the
// other pods are full.
func TestTeamPluginRuns(t *testing.T) {
	code, out, errOut := myvsched(t, "validate", "avoid-pods.yaml")
	if code != 0 || out != "avoid-pods.yaml: valid (scenario)\n" {
		t.Fatalf("validate: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = myvsched(t, "simulate", "-f", "avoid-pods.yaml", "-o", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	// -o json writes a sim.Result.
	var res sim.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]int32{}
	for _, p := range res.Steps[0].Placements["team/orders"] {
		got[p.PodName] = p.VReplicas
	}
	if diff := cmp.Diff(map[string]int32{"adapter-1": 10, "adapter-2": 5}, got); diff != "" {
		t.Errorf("step 1 placements (-want +got):\n%s", diff)
	}
	code, out, _ = myvsched(t, "explain", "-f", "avoid-pods.yaml", "--source", "team/orders")
	if code != 0 || !strings.Contains(out, "AvoidPods 0 x10") || !strings.Contains(out, "AvoidPods 100 x10") {
		t.Errorf("explain: exit %d, the plugin's scores are missing:\n%s", code, out)
	}
	code, out, _ = myvsched(t, "--help")
	if code != 0 || !strings.Contains(out, "myvsched simulate") {
		t.Errorf("--help: exit %d, the command is not named myvsched:\n%s", code, out)
	}
}

// TestTeamPluginArgsChecked: the plugin's own validation reaches the
// operator as any in-tree plugin's does.
func TestTeamPluginArgsChecked(t *testing.T) {
	dir := t.TempDir()
	cm := dir + "/config-scheduler.yaml"
	data := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-scheduler\ndata:\n  priorities: '[{\"Name\": \"AvoidPods\", \"Weight\": 1, \"Args\": {\"Ordinals\": [-1]}}]'\n"
	if err := os.WriteFile(cm, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := myvsched(t, "validate", cm)
	want := cm + ":6: config-scheduler: data.priorities[0].Args.Ordinals[0]: Invalid value: -1: must be >= 0\n"
	if code != 1 || out != want {
		t.Errorf("exit %d, stdout %q, want %q", code, out, want)
	}
}
