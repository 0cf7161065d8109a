package sim

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConfigMapStep: a configmap step changes the policy from the next
// decision, leaving running vreplicas where they are; a rejected edit
// keeps the last good policy, as the controller's watch does.
func TestConfigMapStep(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [zone-a, zone-b, zone-c]
  statefulSet: {replicas: 3, capacity: 10}
steps:
  - schedule: {source: ns/a, vreplicas: 3}
  - configmap:
      name: config-scheduler
      data:
        predicates: '[{"Name": "PodFitsResources"}]'
        priorities: '[{"Name": "LowestOrdinalPriority", "Weight": 1}]'
  - schedule: {source: ns/b, vreplicas: 3}
  - configmap:
      name: config-scheduler
      data: {priorities: '[{"Name": "LowestOrdinalPriority", "Weight": 20}]'}
  - schedule: {source: ns/c, vreplicas: 2}
`)
	on := func(step int, src string) map[string]int32 {
		out := map[string]int32{}
		for _, p := range res.Steps[step].Placements[src] {
			out[p.PodName] = p.VReplicas
		}
		return out
	}
	spread := map[string]int32{"adapter-0": 1, "adapter-1": 1, "adapter-2": 1}
	for _, tc := range []struct {
		step int
		src  string
		want map[string]int32
	}{
		{0, "ns/a", spread},
		{2, "ns/a", spread},                           // running vreplicas stay
		{2, "ns/b", map[string]int32{"adapter-0": 3}}, // packed under the new policy
		{4, "ns/c", map[string]int32{"adapter-0": 2}}, // the rejected edit changed nothing
	} {
		if diff := cmp.Diff(tc.want, on(tc.step, tc.src)); diff != "" {
			t.Errorf("step %d, %s (-want +got):\n%s", tc.step+1, tc.src, diff)
		}
	}
	if got := res.Steps[1].Action; got != "configmap config-scheduler" {
		t.Errorf("action %q", got)
	}
	if diff := cmp.Diff([]string{"config-scheduler applied: in force from the next decision"}, res.Steps[1].Notes); diff != "" {
		t.Errorf("notes of the accepted edit (-want +got):\n%s", diff)
	}
	if n := res.Steps[3].Notes; len(n) != 1 || !strings.HasPrefix(n[0], "InvalidConfiguration: config-scheduler rejected, the last good configuration stays in force: ") || !strings.Contains(n[0], "Weight") {
		t.Errorf("notes of the rejected edit: %q", n)
	}
}

// TestConfigMapStepAutoscaler: a config-autoscaler step changes what the
// next autoscale cycle does.
func TestConfigMapStepAutoscaler(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 1, capacity: 10}
autoscaler: {max-replicas: "2"}
steps:
  - schedule: {source: ns/a, vreplicas: 40}
  - autoscale: {}
  - configmap: {name: config-autoscaler, data: {max-replicas: "4"}}
  - autoscale: {}
`)
	if got := []int32{res.Steps[1].Replicas, res.Steps[3].Replicas}; !cmp.Equal(got, []int32{2, 4}) {
		t.Errorf("replicas after the two autoscale steps: %v; want [2 4]", got)
	}
}

func TestConfigMapStepProblems(t *testing.T) {
	base := "version: 1\ncluster:\n  zones: [zone-a]\n  statefulSet: {capacity: 10}\nsteps:\n"
	for _, tc := range []struct{ step, want string }{
		{"  - configmap: {name: config-schedulr, data: {}}\n", `s.yaml:6: step 1: configmap.name: "config-schedulr" is not a ConfigMap vsched reads (did you mean "config-scheduler"?); give one of config-scheduler, config-descheduler or config-autoscaler`},
		{"  - configmap: {name: config-autoscaler, data: {}, extra: 1}\n", `s.yaml:6: step 1: configmap.extra: unknown field`},
	} {
		_, ps := ParseScenario("s.yaml", []byte(base+tc.step))
		var got []string
		for _, p := range ps {
			got = append(got, p.String())
		}
		if !strings.HasPrefix(strings.Join(got, "\n"), tc.want) {
			t.Errorf("%q:\n%s\nwant\n%s", tc.step, strings.Join(got, "\n"), tc.want)
		}
	}
}
