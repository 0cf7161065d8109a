package sim

import (
	"strings"
	"testing"
)

// base is a valid scenario the cases below break, one way each.
const base = `version: 1
cluster:
  zones: [zone-a, zone-b]
  statefulSet: {replicas: 2, capacity: 10}
steps:
  - name: first
    schedule: {source: default/a, vreplicas: 3}
`

func TestParseValid(t *testing.T) {
	s, ps := ParseScenario("ok.yaml", []byte(base))
	if len(ps) > 0 {
		t.Fatalf("ParseScenario: %v", ps)
	}
	if len(s.Steps) != 1 || s.Steps[0].Kind != StepSchedule || *s.Steps[0].Schedule[0].VReplicas != 3 {
		t.Fatalf("scenario decoded as %+v", s)
	}
	if got := s.Cluster.nodeList(); len(got) != 2 || got[0].Name != "node-zone-a-0" || got[1].Zone != "zone-b" {
		t.Fatalf("nodes = %+v", got)
	}
}

// TestParseProblems covers every kind of problem a scenario can have: each
// case gives the file and the exact lines vsched prints for it.
func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		file string
		data string
		want []string
	}{
		// Syntax.
		{"malformed YAML", "bad.yaml", "version: 1\ncluster:\n  zones: [zone-a, zone-b\n  statefulSet: {capacity: 1}\n",
			[]string{"bad.yaml:3: malformed YAML: did not find expected ',' or ']'"}},
		{"malformed JSON", "bad.json", "{\n  \"version\": 1,\n  \"steps\": [}\n",
			[]string{"bad.json:3: malformed JSON at column 13: invalid character '}' looking for beginning of value"}},
		{"empty", "empty.yaml", "# nothing\n",
			[]string{`empty.yaml: is empty; a scenario starts with "version: 1"`}},
		{"two documents", "two.yaml", base + "---\n" + base,
			[]string{"two.yaml:9: holds 2 YAML documents; a scenario is one document"}},
		{"not a mapping", "list.yaml", "- a\n- b\n",
			[]string{`list.yaml:1: a scenario must be a mapping starting with "version: 1", not a list`}},

		// Shape.
		{"unknown top-level field", "s.yaml", base + "stepz: []\n",
			[]string{`s.yaml:8: stepz: unknown field (did you mean "steps"?); a scenario takes autoscaler, cluster, costClasses, descheduler, description, name, scheduler, sources, steps, version`}},
		{"unknown nested field", "s.yaml", strings.Replace(base, "capacity: 10", "capacty: 10", 1),
			[]string{
				`s.yaml:4: cluster.statefulSet.capacty: unknown field (did you mean "capacity"?); statefulSet takes capacity, name, namespace, podNodes, replicas, resources`,
				`s.yaml:4: cluster.statefulSet.capacity: required: the most vreplicas one pod holds`,
			}},
		{"wrong type", "s.yaml", strings.Replace(base, "replicas: 2", "replicas: two", 1),
			[]string{`s.yaml:4: cluster.statefulSet.replicas: must be an integer, not a string "two"`}},
		{"fraction", "s.yaml", strings.Replace(base, "vreplicas: 3", "vreplicas: 2.5", 1),
			[]string{`s.yaml:7: step 1 "first": schedule.vreplicas: must be an integer, not a number 2.5`}},
		{"list for a mapping", "s.yaml", strings.Replace(base, "statefulSet: {replicas: 2, capacity: 10}", "statefulSet: [2, 10]", 1),
			[]string{`s.yaml:4: cluster.statefulSet: must be a mapping, not a list`}},
		{"field given twice", "s.json", `{"version": 1, "version": 1, "cluster": {"zones": ["a"], "statefulSet": {"capacity": 1}}, "steps": [{"advance": "1m"}]}`,
			[]string{`s.json:1: version: given twice (first on line 1)`}},
		{"YAML key given twice", "s.yaml", base + "  - advance: 1m\n    advance: 2m\n",
			[]string{`s.yaml:9: steps[1].advance: given twice (first on line 8)`}},

		// Version.
		{"no version", "s.yaml", strings.Replace(base, "version: 1\n", "", 1),
			[]string{`s.yaml:1: version: required; write "version: 1" at the top`}},
		{"future version", "s.yaml", strings.Replace(base, "version: 1", "version: 2", 1),
			[]string{`s.yaml:1: version: version 2 is not supported; this vsched reads version 1`}},

		// Cluster.
		{"no nodes", "s.yaml", strings.Replace(base, "  zones: [zone-a, zone-b]\n", "", 1),
			[]string{`s.yaml:2: cluster: describe the nodes: give zones (and nodesPerZone), or nodes`}},
		{"zone twice", "s.yaml", strings.Replace(base, "[zone-a, zone-b]", "[zone-a, zone-a]", 1),
			[]string{`s.yaml:3: cluster.zones[1]: zone "zone-a" is listed twice`}},
		{"bad zone name", "s.yaml", strings.Replace(base, "[zone-a, zone-b]", "[zone-a, 'zone b']", 1),
			[]string{`s.yaml:3: cluster.zones[1]: "zone b" is not a valid zone label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{"nodesPerZone below 1", "s.yaml", strings.Replace(base, "  zones: [zone-a, zone-b]\n", "  zones: [zone-a, zone-b]\n  nodesPerZone: 0\n", 1),
			[]string{`s.yaml:4: cluster.nodesPerZone: must be at least 1, not 0`}},
		{"nodesPerZone with nodes", "s.yaml", strings.Replace(base, "  zones: [zone-a, zone-b]\n", "  zones: [zone-a]\n  nodesPerZone: 2\n  nodes: [{name: n1, zone: zone-a}]\n", 1),
			[]string{`s.yaml:4: cluster.nodesPerZone: applies only without nodes; with nodes listed, list every node`}},
		{"node in unknown zone", "s.yaml", strings.Replace(base, "  zones: [zone-a, zone-b]\n", "  zones: [zone-a, zone-b]\n  nodes: [{name: n1, zone: zone-a}, {name: n2, zone: zone-c}]\n", 1),
			[]string{
				`s.yaml:3: cluster.zones[1]: zone "zone-b" has no node`,
				`s.yaml:4: cluster.nodes[1].zone: unknown zone "zone-c" (did you mean "zone-a"?); the zones are zone-a, zone-b`,
			}},
		{"node without zone", "s.yaml", strings.Replace(base, "  zones: [zone-a, zone-b]\n", "  zones: [zone-a]\n  nodes:\n    - {name: n1, zone: zone-a}\n    - {name: n2}\n", 1),
			[]string{`s.yaml:6: cluster.nodes[1].zone: required: node "n2" needs one of the zones zone-a`}},
		{"node twice and unnamed", "s.yaml", strings.Replace(base, "  zones: [zone-a, zone-b]\n", "  nodes:\n    - {name: n1}\n    - {name: n1}\n    - {zone: z}\n", 1),
			[]string{
				`s.yaml:5: cluster.nodes[1].name: node "n1" is listed twice`,
				`s.yaml:6: cluster.nodes[2].name: required: every node has a name`,
			}},
		{"bad node name", "s.yaml", strings.Replace(base, "  zones: [zone-a, zone-b]\n", "  nodes: [{name: Node_1}]\n", 1),
			[]string{`s.yaml:3: cluster.nodes[0].name: "Node_1" is not a valid node name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"no capacity", "s.yaml", strings.Replace(base, ", capacity: 10", "", 1),
			[]string{`s.yaml:4: cluster.statefulSet.capacity: required: the most vreplicas one pod holds`}},
		{"zero capacity", "s.yaml", strings.Replace(base, "capacity: 10", "capacity: 0", 1),
			[]string{`s.yaml:4: cluster.statefulSet.capacity: must be at least 1, not 0`}},
		{"negative replicas", "s.yaml", strings.Replace(base, "replicas: 2", "replicas: -1", 1),
			[]string{`s.yaml:4: cluster.statefulSet.replicas: must not be negative, not -1`}},
		{"too many replicas", "s.yaml", strings.Replace(base, "replicas: 2", "replicas: 1000000", 1),
			[]string{`s.yaml:4: cluster.statefulSet.replicas: must be at most 10000, not 1000000`}},
		{"bad StatefulSet name", "s.yaml", strings.Replace(base, "replicas: 2", "name: Adapter, replicas: 2", 1),
			[]string{`s.yaml:4: cluster.statefulSet.name: "Adapter" is not a valid StatefulSet name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"pod on unknown node", "s.yaml", strings.Replace(base, "replicas: 2", "replicas: 2, podNodes: [node-zone-a-0, node-zone-c-0]", 1),
			[]string{`s.yaml:4: cluster.statefulSet.podNodes[1]: unknown node "node-zone-c-0" (did you mean "node-zone-a-0"?)`}},

		// Steps.
		{"no steps", "s.yaml", strings.SplitAfter(base, "steps:\n")[0] + "  []\n",
			[]string{`s.yaml:5: steps: required: a scenario has at least one step, or sources`}},
		{"unknown step", "s.yaml", base + "  - name: boom\n    explode: {node: x}\n",
			[]string{`s.yaml:9: step 2 "boom": explode: unknown step "explode"; a step is one of schedule, delete, cordon, uncordon, fail, recover, autoscale, compact, advance, configmap, signal, traffic, usage`}},
		{"misspelt step", "s.yaml", base + "  - schedul: {source: default/b, vreplicas: 1}\n",
			[]string{`s.yaml:8: step 2: schedul: unknown step "schedul" (did you mean "schedule"?); a step is one of schedule, delete, cordon, uncordon, fail, recover, autoscale, compact, advance, configmap, signal, traffic, usage`}},
		{"step without action", "s.yaml", base + "  - name: idle\n",
			[]string{`s.yaml:8: step 2 "idle": the step has no action; give one of schedule, delete, cordon, uncordon, fail, recover, autoscale, compact, advance, configmap, signal, traffic, usage`}},
		{"two actions", "s.yaml", base + "  - cordon: {node: node-zone-a-0}\n    uncordon: {node: node-zone-a-0}\n",
			[]string{`s.yaml:9: step 2: uncordon: a step does one thing, but this one has cordon and uncordon; split it into steps`}},
		{"step not a mapping", "s.yaml", base + "  - autoscale\n",
			[]string{`s.yaml:8: step 2: a step must be a mapping with one action (schedule, delete, cordon, uncordon, fail, recover, autoscale, compact, advance, configmap, signal, traffic, usage), not a string`}},
		{"negative vreplicas", "s.yaml", strings.Replace(base, "vreplicas: 3", "vreplicas: -3", 1),
			[]string{`s.yaml:7: step 1 "first": schedule.vreplicas: must not be negative, not -3`}},
		{"missing vreplicas", "s.yaml", strings.Replace(base, ", vreplicas: 3", "", 1),
			[]string{`s.yaml:7: step 1 "first": schedule.vreplicas: required: how many vreplicas the source wants`}},
		{"too many vreplicas", "s.yaml", strings.Replace(base, "vreplicas: 3", "vreplicas: 2000000", 1),
			[]string{`s.yaml:7: step 1 "first": schedule.vreplicas: must be at most 10000, not 2000000`}},
		{"bad source key", "s.yaml", strings.Replace(base, "default/a", "a", 1),
			[]string{`s.yaml:7: step 1 "first": schedule.source: "a" is not a source key; write namespace/name`}},
		{"bad source namespace", "s.yaml", strings.Replace(base, "default/a", "Default/a", 1),
			[]string{`s.yaml:7: step 1 "first": schedule.source: namespace "Default" is not valid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"source twice in a step", "s.yaml", base + "  - schedule:\n    - {source: default/b, vreplicas: 1}\n    - {source: default/b, vreplicas: 2}\n",
			[]string{`s.yaml:10: step 2: schedule[1].source: source default/b is listed twice in this step`}},
		{"empty schedule list", "s.yaml", base + "  - schedule: []\n",
			[]string{`s.yaml:8: step 2: schedule: lists no source`}},
		{"zero partitions", "s.yaml", strings.Replace(base, "vreplicas: 3", "vreplicas: 3, partitions: 0", 1),
			[]string{`s.yaml:7: step 1 "first": schedule.partitions: must be at least 1 when given, not 0`}},
		{"misspelt schedule field", "s.yaml", strings.Replace(base, "vreplicas: 3", "vreplicas: 3, partitons: 2", 1),
			[]string{`s.yaml:7: step 1 "first": schedule.partitons: unknown field (did you mean "partitions"?); schedule takes cost, partitions, source, vreplicas`}},
		{"delete unknown source", "s.yaml", base + "  - delete: {source: default/b}\n",
			[]string{`s.yaml:8: step 2: delete.source: source default/b does not exist at this step (did you mean "default/a"?)`}},
		{"delete twice", "s.yaml", base + "  - delete: {source: default/a}\n  - delete: {source: default/a}\n",
			[]string{`s.yaml:9: step 3: delete.source: source default/a does not exist at this step`}},
		{"unknown node", "s.yaml", base + "  - name: failure\n    fail: {node: node-x}\n",
			[]string{`s.yaml:9: step 2 "failure": fail.node: unknown node "node-x"; the nodes are node-zone-a-0, node-zone-b-0`}},
		{"unknown zone", "s.yaml", base + "  - recover: {zone: zone-q}\n",
			[]string{`s.yaml:8: step 2: recover.zone: unknown zone "zone-q" (did you mean "zone-a"?); the zones are zone-a, zone-b`}},
		{"node and zone", "s.yaml", base + "  - fail: {node: node-zone-a-0, zone: zone-a}\n",
			[]string{`s.yaml:8: step 2: fail: give a node or a zone, not both`}},
		{"fail nothing", "s.yaml", base + "  - fail: {}\n",
			[]string{`s.yaml:8: step 2: fail: required: node or zone`}},
		{"cordon an unknown zone", "s.yaml", base + "  - cordon: {zone: zone-z}\n",
			[]string{`s.yaml:8: step 2: cordon.zone: unknown zone "zone-z" (did you mean "zone-a"?); the zones are zone-a, zone-b`}},
		{"cordon nothing", "s.yaml", base + "  - uncordon: {}\n",
			[]string{`s.yaml:8: step 2: uncordon: required: node or zone`}},
		{"cordon a string", "s.yaml", base + "  - cordon: node-zone-a-0\n",
			[]string{`s.yaml:8: step 2: cordon: must be a mapping {node: NAME} or {zone: NAME}, not a string`}},
		{"bad duration", "s.yaml", base + "  - advance: 5 min\n",
			[]string{`s.yaml:8: step 2: advance: "5 min" is not a duration; write one such as 5m, 90s or 1h30m`}},
		{"negative duration", "s.yaml", base + "  - advance: -5m\n",
			[]string{`s.yaml:8: step 2: advance: must move the clock forward, not by -5m0s`}},
		{"duration as a number", "s.yaml", base + "  - advance: 300\n",
			[]string{`s.yaml:8: step 2: advance: must be a duration such as 5m or 90s, not a number 300`}},
		{"autoscale with settings", "s.yaml", base + "  - autoscale: {cycles: 3}\n",
			[]string{`s.yaml:8: step 2: autoscale: takes no settings (write "autoscale: {}"), not a mapping`}},
		{"step name not a string", "s.yaml", base + "  - name: [a]\n    compact: {}\n",
			[]string{`s.yaml:8: step 2: name: must be a string, not a list`}},

		// Configuration.
		{"scheduler plugin unknown", "s.yaml", base + "scheduler:\n  priorities: '[{\"Name\": \"AvailabilityZonePriorty\", \"Weight\": 2}]'\n",
			[]string{`s.yaml:9: scheduler.priorities[0].Name: Unsupported value: "AvailabilityZonePriorty": supported values: "AvailabilityNodePriority", "AvailabilityZonePriority", "BalancedZonePriority", "EvenPodSpread", "InUsePodPriority", "LowestOrdinalPriority" (did you mean "AvailabilityZonePriority"?)`}},
		{"scheduler as YAML with bad weight", "s.yaml", base + "scheduler:\n  priorities:\n    - {Name: LowestOrdinalPriority, Weight: 11}\n",
			[]string{`s.yaml:10: scheduler.priorities[0].Weight: Invalid value: 11: must be between 0 and 10`}},
		{"scheduler unknown key", "s.yaml", base + "scheduler:\n  predicate: '[]'\n",
			[]string{`s.yaml:9: scheduler.predicate: Invalid value: "predicate": unknown key (did you mean "predicates"?); the keys of config-scheduler are "predicates" and "priorities" ("_example" is ignored)`}},
		{"descheduler scheduler plugin", "s.yaml", base + "descheduler:\n  priorities: '[{\"Name\": \"LowestOrdinalPriority\"}]'\n",
			[]string{`s.yaml:9: descheduler.priorities[0].Name: Invalid value: "LowestOrdinalPriority": plugin cannot be used here (it is a scheduler score plugin (priority)); plugins allowed here: RemoveWithAvailabilityNodePriority, RemoveWithAvailabilityZonePriority, RemoveWithEvenPodSpreadPriority, RemoveWithHighestOrdinalPriority`}},
		{"autoscaler values", "s.yaml", base + "autoscaler:\n  max-replicas: 0\n  stabilization-window: 5\n",
			[]string{
				`s.yaml:9: autoscaler.max-replicas: Invalid value: 0: must be at least 1`,
				`s.yaml:10: autoscaler.stabilization-window: Invalid value: "5": must be a duration such as "30s", "5m" or "1h30m" (the unit is required)`,
			}},
		{"config not a mapping", "s.yaml", base + "autoscaler: [1]\n",
			[]string{`s.yaml:8: autoscaler: must be a mapping of the ConfigMap's data keys, not a list`}},

		// Several problems at once, in line order.
		{"every problem", "s.yaml", "version: 1\ncluster:\n  zones: [zone-a]\n  statefulSet: {capacity: -1}\nsteps:\n  - fail: {node: nope}\n  - schedule: {source: x/y, vreplicas: -1}\n",
			[]string{
				`s.yaml:4: cluster.statefulSet.capacity: must be at least 1, not -1`,
				`s.yaml:6: step 1: fail.node: unknown node "nope"; the nodes are node-zone-a-0`,
				`s.yaml:7: step 2: schedule.vreplicas: must not be negative, not -1`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ps := ParseScenario(tc.file, []byte(tc.data))
			if s != nil {
				t.Fatalf("ParseScenario accepted the scenario")
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, line := range got {
				if strings.Contains(line, "\n") {
					t.Errorf("problem spans lines: %q", line)
				}
			}
		})
	}
}
