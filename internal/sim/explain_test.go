package sim

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/cmdtest"
)

// explainScenarios are small scenarios in which one plugin decides the last
// decision about default/s, against what the profile would do without it.
var explainScenarios = map[string]string{
	// adapter-0 is full: PodFitsResources rejects it, and the vreplica goes to adapter-1 although the tie-break prefers the lowest ordinal.
	"fits": `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 2, capacity: 2}
scheduler:
  priorities: '[]'
steps:
  - schedule: {source: default/full, vreplicas: 2}
  - schedule: {source: default/s, vreplicas: 1}
`,
	// One partition: once the source is on adapter-0, NoMaxResourceCount rejects every other pod, although EvenPodSpread prefers the empty adapter-1.
	"nomax": `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 3, capacity: 10}
scheduler:
  predicates: '[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount"}]'
  priorities: '[{"Name": "EvenPodSpread", "Weight": 1, "Args": {"MaxSkew": 1}}]'
steps:
  - schedule: {source: default/s, vreplicas: 3, partitions: 1}
`,
	// Pods 0 and 2 are in zone-a, 1 and 3 in zone-b. With the first vreplica on adapter-0, AvailabilityZonePriority sends the second to zone-b (adapter-1), not back to adapter-0 (the tie-break).
	"zone": `version: 1
cluster:
  zones: [zone-a, zone-b]
  statefulSet: {replicas: 4, capacity: 10}
scheduler:
  priorities: '[{"Name": "AvailabilityZonePriority", "Weight": 1, "Args": {"MaxSkew": 1}}]'
steps:
  - schedule: {source: default/s, vreplicas: 2}
`,
	// Pods 0 and 1 share node-zone-a-0. With the first vreplica on adapter-0, AvailabilityNodePriority sends the second to the other node (adapter-2), where EvenPodSpread would pick adapter-1.
	"node": `version: 1
cluster:
  zones: [zone-a]
  nodesPerZone: 2
  statefulSet: {replicas: 3, capacity: 10, podNodes: [node-zone-a-0, node-zone-a-0, node-zone-a-1]}
scheduler:
  priorities: '[{"Name": "AvailabilityNodePriority", "Weight": 1, "Args": {"MaxSkew": 1}}]'
steps:
  - schedule: {source: default/s, vreplicas: 2}
`,
	// EvenPodSpread sends the second vreplica to an empty pod (adapter-1), not back to adapter-0 (the tie-break).
	"even": `version: 1
cluster:
  zones: [zone-a]
  nodesPerZone: 2
  statefulSet: {replicas: 3, capacity: 10, podNodes: [node-zone-a-0, node-zone-a-0, node-zone-a-1]}
scheduler:
  priorities: '[{"Name": "EvenPodSpread", "Weight": 1, "Args": {"MaxSkew": 1}}]'
steps:
  - schedule: {source: default/s, vreplicas: 2}
`,
	// LowestOrdinalPriority at weight 10 outweighs EvenPodSpread at 1: the second vreplica goes back to adapter-0, not to the empty adapter-1.
	"lowest": `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 3, capacity: 10}
scheduler:
  priorities: '[{"Name": "EvenPodSpread", "Weight": 1, "Args": {"MaxSkew": 1}}, {"Name": "LowestOrdinalPriority", "Weight": 10}]'
steps:
  - schedule: {source: default/s, vreplicas: 2}
`,
	// adapter-0 holds 2, adapter-1 holds 1: RemoveWithEvenPodSpreadPriority removes from adapter-0, where the tie-break of removals would take the highest ordinal.
	"rm-even": `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 2, capacity: 2}
scheduler:
  priorities: '[]'
descheduler:
  priorities: '[{"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 1, "Args": {"MaxSkew": 1}}]'
steps:
  - schedule: {source: default/s, vreplicas: 3}
  - schedule: {source: default/s, vreplicas: 2}
`,
	// RemoveWithHighestOrdinalPriority at weight 10 outweighs RemoveWithEvenPodSpreadPriority at 1: it removes from adapter-1, although adapter-0 holds more.
	"rm-highest": `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 2, capacity: 2}
scheduler:
  priorities: '[]'
descheduler:
  priorities: '[{"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 1, "Args": {"MaxSkew": 1}}, {"Name": "RemoveWithHighestOrdinalPriority", "Weight": 10}]'
steps:
  - schedule: {source: default/s, vreplicas: 3}
  - schedule: {source: default/s, vreplicas: 2}
`,
	// Pods 0 and 1 are in zone-a, 2 in zone-b, one vreplica each: RemoveWithAvailabilityZonePriority removes from zone-a (adapter-1), where the tie-break would take adapter-2.
	"rm-zone": `version: 1
cluster:
  zones: [zone-a, zone-b]
  statefulSet: {replicas: 3, capacity: 1, podNodes: [node-zone-a-0, node-zone-a-0, node-zone-b-0]}
descheduler:
  priorities: '[{"Name": "RemoveWithAvailabilityZonePriority", "Weight": 1, "Args": {"MaxSkew": 1}}]'
steps:
  - schedule: {source: default/s, vreplicas: 3}
  - schedule: {source: default/s, vreplicas: 2}
`,
	// Pods 0 and 1 share a node, 2 is alone: RemoveWithAvailabilityNodePriority removes from the shared node (adapter-1), where the tie-break would take adapter-2.
	"rm-node": `version: 1
cluster:
  zones: [zone-a]
  nodesPerZone: 2
  statefulSet: {replicas: 3, capacity: 1, podNodes: [node-zone-a-0, node-zone-a-0, node-zone-a-1]}
descheduler:
  priorities: '[{"Name": "RemoveWithAvailabilityNodePriority", "Weight": 1, "Args": {"MaxSkew": 1}}]'
steps:
  - schedule: {source: default/s, vreplicas: 3}
  - schedule: {source: default/s, vreplicas: 2}
`,
}

// TestExplainEachPluginDecides runs a scenario per plugin and checks the
// explanation of the source's most recent decision: the mode, the winner
// per vreplica, and that the plugin is what made the winner win (a filter
// rejected the rival, with its reason; a score plugin scored the winner
// above it).
func TestExplainEachPluginDecides(t *testing.T) {
	tests := []struct {
		plugin   string
		scenario string
		mode     framework.Mode
		vreplica int    // 1-based, within the decision
		winner   string // the pod the plugin makes win
		rival    string // the pod that would win without it
	}{
		{"PodFitsResources", "fits", framework.Place, 1, "adapter-1", "adapter-0"},
		{"NoMaxResourceCount", "nomax", framework.Place, 2, "adapter-0", "adapter-1"},
		{"AvailabilityZonePriority", "zone", framework.Place, 2, "adapter-1", "adapter-0"},
		{"AvailabilityNodePriority", "node", framework.Place, 2, "adapter-2", "adapter-1"},
		{"EvenPodSpread", "even", framework.Place, 2, "adapter-1", "adapter-0"},
		{"LowestOrdinalPriority", "lowest", framework.Place, 2, "adapter-0", "adapter-1"},
		{"RemoveWithEvenPodSpreadPriority", "rm-even", framework.Remove, 1, "adapter-0", "adapter-1"},
		{"RemoveWithHighestOrdinalPriority", "rm-highest", framework.Remove, 1, "adapter-1", "adapter-0"},
		{"RemoveWithAvailabilityZonePriority", "rm-zone", framework.Remove, 1, "adapter-1", "adapter-2"},
		{"RemoveWithAvailabilityNodePriority", "rm-node", framework.Remove, 1, "adapter-1", "adapter-2"},
	}
	key := types.NamespacedName{Namespace: "default", Name: "s"}
	for _, tc := range tests {
		t.Run(tc.plugin, func(t *testing.T) {
			s, ps := ParseScenario(tc.scenario+".yaml", []byte(explainScenarios[tc.scenario]))
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			_, ex, err := Run(context.Background(), s, Options{Explain: &key})
			if err != nil {
				t.Fatal(err)
			}
			if ex == nil {
				t.Fatal("no decision recorded")
			}
			if ex.Step != len(s.Steps)-1 {
				t.Errorf("decision recorded at step %d, want the last (%d)", ex.Step+1, len(s.Steps))
			}
			e := ex.Explanation
			if e.Mode != tc.mode {
				t.Errorf("mode %v, want %v", e.Mode, tc.mode)
			}
			if len(e.Steps) < tc.vreplica {
				t.Fatalf("%d vreplica(s) explained, want at least %d", len(e.Steps), tc.vreplica)
			}
			step := e.Steps[tc.vreplica-1]
			if step.WinnerPod != tc.winner {
				t.Errorf("vreplica %d went to %s, want %s", tc.vreplica, step.WinnerPod, tc.winner)
			}
			var winner, rival *framework.CandidateExplanation
			for i := range step.Candidates {
				switch step.Candidates[i].Pod {
				case tc.winner:
					winner = &step.Candidates[i]
				case tc.rival:
					rival = &step.Candidates[i]
				}
			}
			if winner == nil || rival == nil {
				t.Fatalf("candidates %+v lack the winner %s or the rival %s", step.Candidates, tc.winner, tc.rival)
			}
			if !winner.Feasible {
				t.Errorf("winner %s is not feasible: %+v", tc.winner, winner.Rejected)
			}
			score := func(c *framework.CandidateExplanation) (int64, bool) {
				for _, sc := range c.Scores {
					if sc.Plugin == tc.plugin {
						return sc.Weighted, true
					}
				}
				return 0, false
			}
			if ws, scored := score(winner); scored {
				rs, _ := score(rival)
				if !rival.Feasible || ws <= rs {
					t.Errorf("%s scored the winner %d and the rival %d (feasible %v): it did not decide", tc.plugin, ws, rs, rival.Feasible)
				}
			} else {
				if rival.Rejected == nil || rival.Rejected.Plugin != tc.plugin || len(rival.Rejected.Reasons) == 0 || rival.Rejected.Reasons[0] == "" {
					t.Errorf("rival %s: rejection %+v, want one by %s with its reason", tc.rival, rival.Rejected, tc.plugin)
				}
			}
			// What people read names the plugin, the winner and the mode.
			var buf bytes.Buffer
			if err := WriteExplanation(&buf, "default/s", ex); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, want := range []string{tc.plugin, "* " + tc.winner, "default/s: " + tc.mode.String() + " decision"} {
				if !strings.Contains(out, want) {
					t.Errorf("explanation lacks %q:\n%s", want, out)
				}
			}
			if testing.Verbose() {
				os.Stdout.WriteString(out)
			}
		})
	}
}

// TestExplainMostRecentDecision checks the explanation is the last one that
// decided something, not a later call that changed nothing, and names the
// step.
func TestExplainMostRecentDecision(t *testing.T) {
	s, ps := ParseScenario("s.yaml", []byte(`version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 2, capacity: 10}
steps:
  - schedule: {source: default/s, vreplicas: 2}
  - name: grow
    schedule: {source: default/s, vreplicas: 5}
  - name: unchanged
    schedule: {source: default/s, vreplicas: 5}
  - schedule: {source: default/other, vreplicas: 3}
`))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	key := types.NamespacedName{Namespace: "default", Name: "s"}
	_, ex, err := Run(context.Background(), s, Options{Explain: &key})
	if err != nil {
		t.Fatal(err)
	}
	if ex == nil || ex.Step != 1 || ex.StepTitle != "grow" || len(ex.Explanation.Steps) != 3 {
		t.Fatalf("explained %+v, want step 2 \"grow\" placing 3 vreplicas", ex)
	}
	var buf bytes.Buffer
	if err := WriteExplanationJSON(&buf, "default/s", ex); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"step": 2`, `"stepName": "grow"`, `"mode": "place"`, `"winnerPod": "adapter-`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JSON explanation lacks %s:\n%s", want, buf.String())
		}
	}
}

// TestExplainChangesNothing checks that asking for explanations, which
// makes the framework evaluate every candidate, leaves the result as it is.
func TestExplainChangesNothing(t *testing.T) {
	s := loadExample(t, "builtin.yaml")
	plain := simulateJSON(t, s, Options{})
	for _, src := range []string{"shop/orders", "ops/alerts"} {
		key, _ := SourceKey(src)
		if got := simulateJSON(t, s, Options{Explain: &key}); !bytes.Equal(got, plain) {
			t.Errorf("explaining %s changed the result:\n%s", src, cmdtest.FirstDiff(string(plain), string(got)))
		}
	}
}
