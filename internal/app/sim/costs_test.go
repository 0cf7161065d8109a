package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched/usage"
)

// placed is a source's placements as "pod=n ...".
func placed(st StepResult, src string) string {
	var parts []string
	for _, p := range st.Placements[src] {
		parts = append(parts, fmt.Sprintf("%s=%d", p.PodName, p.VReplicas))
	}
	return strings.Join(parts, " ")
}

// podResources is each pod's resources as "pod: name cost/capacity
// measured, ...".
func podResources(st StepResult) []string {
	var out []string
	for _, p := range st.Pods {
		var parts []string
		for _, r := range p.Resources {
			s := r.Name + " " + r.Cost + "/" + r.Capacity
			if r.Measured != "" {
				s += " measured " + r.Measured
			}
			parts = append(parts, s)
		}
		out = append(out, p.Name+": "+strings.Join(parts, ", "))
	}
	return out
}

// TestCostsExample pins examples/costs.yaml: heavy vreplicas fill a pod's
// memory with slots to spare, the fit grows the StatefulSet for them, the
// cpu trigger grows it at 1m30s (its window and the list's cooldown over)
// and the down trigger shrinks it no lower than the fit.
func TestCostsExample(t *testing.T) {
	res, _, err := Run(context.Background(), loadExample(t, "costs.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Steps
	// Step 2: no pod has 400Mi left, though each has 5 slots.
	if got := st[1].Pending["kafka/big"]; got != 2 {
		t.Errorf("step 2: kafka/big pending %d, want 2 (memory full)", got)
	}
	if diff := cmp.Diff([]string{
		"adapter-0: cpu 200m/1, memory 950Mi/1Gi",
		"adapter-1: cpu 200m/1, memory 950Mi/1Gi",
	}, podResources(st[1])); diff != "" {
		t.Errorf("step 2 pods (-want +got):\n%s", diff)
	}
	// Step 3: the fit places them on two new pods, one per zone.
	if got, want := placed(st[2], "kafka/big"), "adapter-0=2 adapter-1=2 adapter-2=1 adapter-3=1"; got != want || st[2].Replicas != 4 {
		t.Errorf("step 3: %d replicas, kafka/big %s; want 4, %s", st[2].Replicas, got, want)
	}
	// Step 5: three measured pods at 900m of 1: 90% > 70% from the first
	// point; the window (1m from the first cycle at 0s) and the up list's
	// cooldown (1m from the size change the policy saw at 30s) end at
	// 1m30s: ceil(90/70 x 4) = 6.
	if diff := cmp.Diff([]string{"30s 4", "1m0s 4", "1m30s 6", "2m0s 6"}, cycleTimes(st[4])); diff != "" {
		t.Errorf("step 5 cycles (-want +got):\n%s", diff)
	}
	if n := st[4].Cycles[2].Notes; len(n) != 1 || !strings.HasSuffix(n[0], "cpu trigger (usage 70%): 3 of 3 point(s) in 1m0s above it, more than 50%; 6 pod(s)") {
		t.Errorf("step 5, the cycle at 1m30s: %q", n)
	}
	if diff := cmp.Diff([]string{
		"adapter-0: cpu 200m/1 measured 900m, memory 950Mi/1Gi measured 900Mi",
		"adapter-1: cpu 200m/1 measured 900m, memory 950Mi/1Gi measured 900Mi",
		"adapter-2: cpu 100m/1 measured 900m, memory 400Mi/1Gi measured 800Mi",
		"adapter-3: cpu 100m/1, memory 400Mi/1Gi",
		"adapter-4: cpu 0/1, memory 0/1Gi",
		"adapter-5: cpu 0/1, memory 0/1Gi",
	}, podResources(st[4])); diff != "" {
		t.Errorf("step 5 pods (-want +got):\n%s", diff)
	}
	// Step 7: cpu at 10%; at 3m two of the window's three points are
	// below 30% and the down list's cooldown is over: ceil(10/30 x 6) = 2,
	// raised to the fit's 3, rounded to 4 for the two zones.
	if diff := cmp.Diff([]string{"2m30s 6", "3m0s 4", "3m30s 4", "4m0s 4", "4m30s 4", "5m0s 4"}, cycleTimes(st[6])); diff != "" {
		t.Errorf("step 7 cycles (-want +got):\n%s", diff)
	}
	if n := st[6].Cycles[4].Notes; len(n) != 1 || !strings.HasSuffix(n[0], "cpu trigger (usage 30%): 3 of 3 point(s) in 1m0s below it, more than 50%; 2 pod(s); 3 pod(s) needed to fit every vreplica") {
		t.Errorf("step 7, the cycle at 4m30s: %q", n)
	}
	for i := range st {
		if st[i].Metrics.Pending == 0 {
			assertWithinResources(t, i, st[i])
		}
	}
}

// assertWithinResources checks no pod's costs exceed its capacity.
func assertWithinResources(t *testing.T, i int, st StepResult) {
	t.Helper()
	for _, p := range st.Pods {
		for _, r := range p.Resources {
			if r.Capacity == "" {
				continue
			}
			if c, q := resource.MustParse(r.Cost), resource.MustParse(r.Capacity); c.Cmp(q) > 0 {
				t.Errorf("step %d: %s's %s %s is over its capacity %s", i+1, p.Name, r.Name, r.Cost, r.Capacity)
			}
		}
	}
}

// TestCostsParseProblems: costs, classes, resources and usage steps are
// checked with their paths.
func TestCostsParseProblems(t *testing.T) {
	base := "version: 1\ncluster:\n  zones: [zone-a]\n  statefulSet: {capacity: 10, resources: {memory: 1Gi}}\ncostClasses: {heavy: memory=400Mi}\nsteps:\n"
	for _, tc := range []struct {
		name, data, want string
	}{
		{"bad cost", base + "  - schedule: {source: a/b, vreplicas: 1, cost: memory=lots}\n",
			`s.yaml:7: step 1: schedule.cost: cost item 0 ("memory=lots"): quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
		{"unknown class", base + "  - schedule: {source: a/b, vreplicas: 1, cost: heavvy}\n",
			`s.yaml:7: step 1: schedule.cost: no cost class "heavvy" (did you mean "heavy"?); write a cost such as "memory=512Mi,cpu=250m" or one of the scenario's costClasses (heavy)`},
		{"bad class", "version: 1\ncluster:\n  zones: [zone-a]\n  statefulSet: {capacity: 10}\ncostClasses: {big: memory=-1}\nsteps:\n  - advance: 1m\n",
			`s.yaml:5: costClasses.big: cost of memory: -1 is negative`},
		{"bad resource", "version: 1\ncluster:\n  zones: [zone-a]\n  statefulSet: {capacity: 10, resources: {memory: 0}}\nsteps:\n  - advance: 1m\n",
			`s.yaml:4: cluster.statefulSet.resources.memory: must be more than 0, not 0`},
		{"usage of another StatefulSet's pod", base + "  - usage: {pod: other-0, cpu: 1}\n",
			`s.yaml:7: step 1: usage.pod: "other-0" is not a pod of StatefulSet adapter; write adapter-ORDINAL`},
		{"negative usage", base + "  - usage: [{pod: adapter-0, cpu: -1}]\n",
			`s.yaml:7: step 1: usage[0].cpu: must not be negative, not -1`},
		{"usage twice", base + "  - usage: [{pod: adapter-0, cpu: 1}, {pod: adapter-0}]\n",
			`s.yaml:7: step 1: usage[1].pod: pod adapter-0 is listed twice in this step`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ps := ParseScenario("s.yaml", []byte(tc.data))
			if s != nil {
				t.Fatal("ParseScenario accepted the scenario")
			}
			if got := ps.Error(); got != tc.want {
				t.Errorf("problems:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// fixedReader is a usage.Reader of fixed samples.
type fixedReader []usage.Sample

func (f fixedReader) Read(context.Context) ([]usage.Sample, error) { return f, nil }

// TestTriggerUsage: the triggers read the measured pods' usage over their
// capacity times as many pods; without a capacity or a measured pod the
// usage is unknown.
func TestTriggerUsage(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	samples := fixedReader{
		{Pod: "adapter-0", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("900m")}, Time: now.Add(-time.Hour)},
		{Pod: "adapter-1", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}, Time: now},
	}
	u := triggerUsage{reader: samples, resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}, now: func() time.Time { return now }}
	type answer struct {
		Used, Requested int64
		OK              bool
	}
	for _, tc := range []struct {
		r    corev1.ResourceName
		want answer
	}{
		{corev1.ResourceCPU, answer{2400, 4000, true}}, // an hour-old sample still counts: usage stays as set
		{corev1.ResourceMemory, answer{}},              // no capacity in memory
	} {
		used, req, ok := u.Usage(context.Background(), tc.r)
		if diff := cmp.Diff(tc.want, answer{used, req, ok}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.r, diff)
		}
	}
	none := triggerUsage{reader: fixedReader{}, resources: u.resources, now: u.now}
	if _, _, ok := none.Usage(context.Background(), corev1.ResourceCPU); ok {
		t.Error("no pod measured, yet the usage is known")
	}
}

// TestCostKeptOnUpdate: an initial source's cost counts from the start; a
// schedule step without cost keeps the source's, and cost "" removes it.
func TestCostKeptOnUpdate(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 1, capacity: 10, resources: {memory: 1Gi}}
sources:
  - {source: ns/a, vreplicas: 1, cost: memory=100Mi, placements: [{podName: adapter-0, vreplicas: 1}]}
steps:
  - schedule: {source: ns/a, vreplicas: 2}
  - schedule: {source: ns/a, vreplicas: 2, cost: ""}
  - schedule: {source: ns/a, vreplicas: 2, cost: memory=0.5Gi}
`)
	var got []string
	for _, st := range append([]StepResult{*res.Initial}, res.Steps...) {
		got = append(got, podResources(st)...)
	}
	want := []string{
		"adapter-0: memory 100Mi/1Gi",
		"adapter-0: memory 200Mi/1Gi",
		"adapter-0: memory 0/1Gi",
		"adapter-0: memory 1Gi/1Gi",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("adapter-0 per step (-want +got):\n%s", diff)
	}
}

// TestGoldenCostsTable pins the table of the costs example: its resource
// columns and their legend.
func TestGoldenCostsTable(t *testing.T) {
	_, out := render(t, loadExample(t, "costs.yaml"), Options{}, WriteTable)
	golden(t, "costs.txt", out)
}

// TestHTMLResources: with pod resources each pod's row says its cost and
// capacity per resource and its measured usage; without, no row does.
func TestHTMLResources(t *testing.T) {
	_, page := renderHTML(t, "costs.yaml")
	got := map[string]string{}
	walk(section(parsePage(t, page), 5), func(n *html.Node) {
		if n.Data == "text" && hasClass(n, "resources") {
			pod, _ := attr(n.Parent, "data-pod")
			got[pod] = text(n)
		}
	})
	want := map[string]string{
		"adapter-0": "cpu 200m/1, memory 950Mi/1Gi; measured cpu=900m,memory=900Mi",
		"adapter-1": "cpu 200m/1, memory 950Mi/1Gi; measured cpu=900m,memory=900Mi",
		"adapter-2": "cpu 100m/1, memory 400Mi/1Gi; measured cpu=900m,memory=800Mi",
		"adapter-3": "cpu 100m/1, memory 400Mi/1Gi",
		"adapter-4": "cpu 0/1, memory 0/1Gi",
		"adapter-5": "cpu 0/1, memory 0/1Gi",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("step 5's rows (-want +got):\n%s", diff)
	}
	if _, plain := renderHTML(t, "builtin.yaml"); strings.Contains(string(plain), `class="resources"`) {
		t.Error("the built-in scenario, without resources, shows them")
	}
}

// TestUsageStep: a usage step replaces a pod's measurement; a pod given
// without a resource is no longer measured; without pod resources only
// the measurement shows, and the cpu trigger stays quiet (no capacity to
// measure against).
func TestUsageStep(t *testing.T) {
	res := runScenario(t, `version: 1
cluster:
  zones: [zone-a]
  statefulSet: {replicas: 2, capacity: 10}
autoscaler:
  policy: triggers
  triggers: '{"up": {"triggers": [{"type": "cpu", "usage": 50, "threshold": 0, "time": "0s"}]}}'
steps:
  - usage: [{pod: adapter-0, cpu: 2}, {pod: adapter-1, cpu: 1, memory: 1Mi}]
  - usage: {pod: adapter-1, memory: 2Mi}
  - usage: {pod: adapter-0}
  - autoscale: {}
`)
	var got []string
	for _, st := range res.Steps {
		got = append(got, st.Action+" | "+strings.Join(podResources(st), " | "))
	}
	want := []string{
		"usage adapter-0 cpu=2 adapter-1 cpu=1,memory=1Mi | adapter-0: cpu 0/ measured 2 | adapter-1: cpu 0/ measured 1, memory 0/ measured 1Mi",
		"usage adapter-1 memory=2Mi | adapter-0: cpu 0/ measured 2 | adapter-1: memory 0/ measured 2Mi",
		"usage adapter-0 unmeasured | adapter-0:  | adapter-1: memory 0/ measured 2Mi",
		"autoscale | adapter-0:  | adapter-1: memory 0/ measured 2Mi",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if res.Steps[3].Replicas != 2 {
		t.Errorf("the cpu trigger acted without a capacity: %d replicas, notes %q", res.Steps[3].Replicas, res.Steps[3].Notes)
	}
}
