package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestExplainVReplicaDecisionJSON: -o json and -o yaml carry the source
// autoscaler's decision that the text output shows (the last one up to
// --step), under "vreplicaDecision" right after "source", and nothing for
// a source without a signal.
func TestExplainVReplicaDecisionJSON(t *testing.T) {
	files := map[string]string{"s.yaml": burst, "c.yaml": capped}
	step2 := &vreplicaDecisionJSON{Step: 2}
	step2.Clock = "30s"
	step2.Summary = "3 -> 7 vreplicas (panic): signal 650, stable average 383.3 asks 4, panic average 650 asks 7"
	step2.Lines = []string{
		"vreplicas: 3 -> 7, mode panic",
		"signal: 650, target 100 per vreplica (activation above 0)",
		"stable window 1m0s: average 383.333, ceil(383.333 / 100) = 4",
		"panic window 6s: average 650, ceil(650 / 100) = 7; panic from 2 x 300 = 600",
		"rate limits: from 3, at most 3000 (x1000 up), at least 1 (/2 down); scale-down delay 0s",
		"bounds: min 0, max 50; no partition cap applied",
	}
	tests := []struct {
		args      []string
		wantStep  int // 0: no vreplicaDecision
		wantFirst *vreplicaDecisionJSON
	}{
		{[]string{"-f", "s.yaml", "--source", "k/a", "--step", "2", "-o", "json"}, 2, step2},
		{[]string{"-f", "s.yaml", "--source", "k/a", "--step", "2", "-o", "yaml"}, 2, step2},
		{[]string{"-f", "s.yaml", "--source", "k/a", "-o", "json"}, 3, nil},
		{[]string{"-f", "s.yaml", "--source", "k/a", "--all", "-o", "json"}, 3, nil},
		{[]string{"-f", "c.yaml", "--source", "default/s", "-o", "json"}, 0, nil},
	}
	for _, tc := range tests {
		code, out, errOut := run(t, files, append([]string{"explain"}, tc.args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		j := []byte(out)
		if tc.args[len(tc.args)-1] == "yaml" {
			var err error
			if j, err = yaml.YAMLToJSON(j); err != nil {
				t.Fatal(err)
			}
		} else if !strings.HasPrefix(out, "{\n  \"version\": 1,\n  \"source\": ") {
			t.Errorf("%v: the output does not open with version and source:\n%.80s", tc.args, out)
		}
		var got struct {
			VReplicaDecision *vreplicaDecisionJSON `json:"vreplicaDecision"`
			Mode             string                `json:"mode"`
			Decisions        []json.RawMessage     `json:"decisions"`
		}
		if err := json.Unmarshal(j, &got); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got.Mode == "" && len(got.Decisions) == 0 {
			t.Errorf("%v: the scheduler's decision is gone", tc.args)
		}
		switch {
		case tc.wantStep == 0 && got.VReplicaDecision != nil:
			t.Errorf("%v: a vreplicaDecision for a source without a signal: %+v", tc.args, got.VReplicaDecision)
		case tc.wantStep == 0:
		case got.VReplicaDecision == nil:
			t.Errorf("%v: no vreplicaDecision", tc.args)
		case got.VReplicaDecision.Step != tc.wantStep || len(got.VReplicaDecision.Lines) == 0:
			t.Errorf("%v: vreplicaDecision of step %d with %d lines; want step %d and its numbers", tc.args, got.VReplicaDecision.Step, len(got.VReplicaDecision.Lines), tc.wantStep)
		case tc.wantFirst != nil:
			if diff := cmp.Diff(tc.wantFirst, got.VReplicaDecision); diff != "" {
				t.Errorf("%v: vreplicaDecision (-want +got):\n%s", tc.args, diff)
			}
		}
	}
}
