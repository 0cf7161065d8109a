package sim

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/testkit/cmdtest"
)

// explainScenario is a small scenario in which one plugin decides the last
// decision about default/s, against what the profile would do without it.
// Each case gives only what sets it apart; yaml writes the rest.
type explainScenario struct {
	zones      string   // the cluster's zones
	nodes      int      // nodes per zone; 0 leaves the default
	set        string   // the statefulSet mapping
	predicates string   // config-scheduler's predicates; "" leaves them out
	priorities string   // config-scheduler's priorities; "" leaves them out
	removals   string   // config-descheduler's priorities; "" leaves them out
	steps      []string // each step's schedule mapping, in order
}

func (e explainScenario) yaml() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\ncluster:\n  zones: %s\n", e.zones)
	if e.nodes > 0 {
		fmt.Fprintf(&b, "  nodesPerZone: %d\n", e.nodes)
	}
	fmt.Fprintf(&b, "  statefulSet: %s\n", e.set)
	if e.predicates != "" || e.priorities != "" {
		b.WriteString("scheduler:\n")
		writeData(&b, "predicates", e.predicates)
		writeData(&b, "priorities", e.priorities)
	}
	if e.removals != "" {
		b.WriteString("descheduler:\n")
		writeData(&b, "priorities", e.removals)
	}
	b.WriteString("steps:\n")
	for _, st := range e.steps {
		fmt.Fprintf(&b, "  - schedule: %s\n", st)
	}
	return []byte(b.String())
}

func writeData(b *strings.Builder, key, value string) {
	if value != "" {
		fmt.Fprintf(b, "  %s: '%s'\n", key, value)
	}
}

// The clusters and steps the cases share.
const (
	oneZone = "[zone-a]"
	// Pods 0 and 1 share node-zone-a-0; pod 2 is alone on node-zone-a-1.
	sharedNode = "{replicas: 3, capacity: 10, podNodes: [node-zone-a-0, node-zone-a-0, node-zone-a-1]}"
	evenSpread = `{"Name": "EvenPodSpread", "Weight": 1, "Args": {"MaxSkew": 1}}`
	evenRemove = `{"Name": "RemoveWithEvenPodSpreadPriority", "Weight": 1, "Args": {"MaxSkew": 1}}`
)

var (
	placeTwo     = []string{"{source: default/s, vreplicas: 2}"}
	threeThenTwo = []string{"{source: default/s, vreplicas: 3}", "{source: default/s, vreplicas: 2}"}
)

var explainScenarios = map[string]explainScenario{
	// adapter-0 is full: PodFitsResources rejects it, and the vreplica goes to adapter-1 although the tie-break prefers the lowest ordinal.
	"fits": {zones: oneZone, set: "{replicas: 2, capacity: 2}", priorities: "[]",
		steps: []string{"{source: default/full, vreplicas: 2}", "{source: default/s, vreplicas: 1}"}},
	// One partition: once the source is on adapter-0, NoMaxResourceCount rejects every other pod, although EvenPodSpread prefers the empty adapter-1.
	"nomax": {zones: oneZone, set: "{replicas: 3, capacity: 10}",
		predicates: `[{"Name": "PodFitsResources"}, {"Name": "NoMaxResourceCount"}]`, priorities: "[" + evenSpread + "]",
		steps: []string{"{source: default/s, vreplicas: 3, partitions: 1}"}},
	// Pods 0 and 2 are in zone-a, 1 and 3 in zone-b. With the first vreplica on adapter-0, AvailabilityZonePriority sends the second to zone-b (adapter-1), not back to adapter-0 (the tie-break).
	"zone": {zones: "[zone-a, zone-b]", set: "{replicas: 4, capacity: 10}",
		priorities: `[{"Name": "AvailabilityZonePriority", "Weight": 1, "Args": {"MaxSkew": 1}}]`, steps: placeTwo},
	// With the first vreplica on adapter-0, AvailabilityNodePriority sends the second to the other node (adapter-2), where EvenPodSpread would pick adapter-1.
	"node": {zones: oneZone, nodes: 2, set: sharedNode,
		priorities: `[{"Name": "AvailabilityNodePriority", "Weight": 1, "Args": {"MaxSkew": 1}}]`, steps: placeTwo},
	// EvenPodSpread sends the second vreplica to an empty pod (adapter-1), not back to adapter-0 (the tie-break).
	"even": {zones: oneZone, nodes: 2, set: sharedNode, priorities: "[" + evenSpread + "]", steps: placeTwo},
	// LowestOrdinalPriority at weight 10 outweighs EvenPodSpread at 1: the second vreplica goes back to adapter-0, not to the empty adapter-1.
	"lowest": {zones: oneZone, set: "{replicas: 3, capacity: 10}",
		priorities: "[" + evenSpread + `, {"Name": "LowestOrdinalPriority", "Weight": 10}]`, steps: placeTwo},
	// adapter-0 holds 2, adapter-1 holds 1: RemoveWithEvenPodSpreadPriority removes from adapter-0, where the tie-break of removals would take the highest ordinal.
	"rm-even": {zones: oneZone, set: "{replicas: 2, capacity: 2}", priorities: "[]",
		removals: "[" + evenRemove + "]", steps: threeThenTwo},
	// RemoveWithHighestOrdinalPriority at weight 10 outweighs RemoveWithEvenPodSpreadPriority at 1: it removes from adapter-1, although adapter-0 holds more.
	"rm-highest": {zones: oneZone, set: "{replicas: 2, capacity: 2}", priorities: "[]",
		removals: "[" + evenRemove + `, {"Name": "RemoveWithHighestOrdinalPriority", "Weight": 10}]`, steps: threeThenTwo},
	// Pods 0 and 1 are in zone-a, 2 in zone-b, one vreplica each: RemoveWithAvailabilityZonePriority removes from zone-a (adapter-1), where the tie-break would take adapter-2.
	"rm-zone": {zones: "[zone-a, zone-b]", set: "{replicas: 3, capacity: 1, podNodes: [node-zone-a-0, node-zone-a-0, node-zone-b-0]}",
		removals: `[{"Name": "RemoveWithAvailabilityZonePriority", "Weight": 1, "Args": {"MaxSkew": 1}}]`, steps: threeThenTwo},
	// Pods 0 and 1 share a node, 2 is alone: RemoveWithAvailabilityNodePriority removes from the shared node (adapter-1), where the tie-break would take adapter-2.
	"rm-node": {zones: oneZone, nodes: 2, set: "{replicas: 3, capacity: 1, podNodes: [node-zone-a-0, node-zone-a-0, node-zone-a-1]}",
		removals: `[{"Name": "RemoveWithAvailabilityNodePriority", "Weight": 1, "Args": {"MaxSkew": 1}}]`, steps: threeThenTwo},
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
			s, ps := ParseScenario(tc.scenario+".yaml", explainScenarios[tc.scenario].yaml())
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
