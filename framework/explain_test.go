package framework_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// explainedExample runs a four-vreplica decision with every kind of line an
// explanation has: a rejection, counted scores, a failing weight-0 plugin, a
// skipped plugin, and a vreplica that cannot be placed.
//
// Capacity 2; pod 0 (n0) full, pod 1 (n1) holds 1 of another source, pod 2
// (n0) empty. Pref scores pod 1 60 and pod 2 80, x2; LowestOrdinal scores a
// pod other sources use 100, any other 100*(3-ordinal)/3: pod 1 100, pod 2
// 33. Totals: pod 1 120+100 = 220, pod 2 160+33 = 193. So pod 1 takes the
// first vreplica and is full; pod 2 the second and the third; the fourth
// finds every pod full.
func explainedExample(t *testing.T) *framework.Explanation {
	t.Helper()
	c := ft.NewCluster(2).Node("n0", "a").Node("n1", "b").Pods("n0", "n1", "n0").Use(0, 2).Use(1, 1)
	p := newProfile(t, framework.Place, capacityOnly(),
		ws(&ft.ScriptedScorer{PluginName: "Pref", Scores: map[int32]int64{1: 60, 2: 80}}, 2),
		ws(ft.LowestOrdinalScorer{}, 1),
		ws(&ft.SkippingPlugin{}, 1),
		ws(&ft.FailingPlugin{At: ft.AtScore}, 0),
	)
	ex := &framework.Explanation{}
	res, _, err := run(t, p, c, nil, 4, ex)
	if err != nil || res.Changed != 3 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	return ex
}

func TestExplanationText(t *testing.T) {
	var b bytes.Buffer
	if err := explainedExample(t).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `ns/src: place decision (skipped plugins: FakeSkipping)
vreplica 1 -> adapter-1
    adapter-0                rejected by FakeCapacity: pod has no free capacity
  * adapter-1                total 220   Pref 60 x2, FakeLowestOrdinal 100 x1, FakeFailing x0 failed (Error: fake plugin failure)
    adapter-2                total 193   Pref 80 x2, FakeLowestOrdinal 33 x1, FakeFailing x0 failed (Error: fake plugin failure)
vreplica 2 -> adapter-2
    adapter-0                rejected by FakeCapacity: pod has no free capacity
    adapter-1                rejected by FakeCapacity: pod has no free capacity
  * adapter-2                total 193   Pref 80 x2, FakeLowestOrdinal 33 x1, FakeFailing x0 failed (Error: fake plugin failure)
vreplica 3 -> adapter-2
    adapter-0                rejected by FakeCapacity: pod has no free capacity
    adapter-1                rejected by FakeCapacity: pod has no free capacity
  * adapter-2                total 193   Pref 80 x2, FakeLowestOrdinal 33 x1, FakeFailing x0 failed (Error: fake plugin failure)
vreplica 4 -> not placed: 3 candidate pod(s): FakeCapacity rejected 3 pod(s) (e.g. "pod has no free capacity")
    adapter-0                rejected by FakeCapacity: pod has no free capacity
    adapter-1                rejected by FakeCapacity: pod has no free capacity
    adapter-2                rejected by FakeCapacity: pod has no free capacity
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WriteText (-want +got):\n%s", diff)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestExplanationTextWriteError(t *testing.T) {
	if err := explainedExample(t).WriteText(failingWriter{}); err == nil {
		t.Errorf("WriteText hid the writer's error")
	}
}

func TestExplanationJSON(t *testing.T) {
	c := ft.NewCluster(2).Node("n0", "a").Pods("n0", "n0").Use(0, 2)
	p := newProfile(t, framework.Place, capacityOnly(), ws(ft.LowestOrdinalScorer{}, 3), ws(&ft.SkippingPlugin{}, 1))
	ex := &framework.Explanation{}
	if _, _, err := run(t, p, c, nil, 1, ex); err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(ex, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// Mode and Key are left to the caller, who knows them; a rejected pod
	// has no scores, a feasible one no rejection.
	want := `{
  "skipped": [
    "FakeSkipping"
  ],
  "steps": [
    {
      "vreplica": 1,
      "winner": 1,
      "winnerPod": "adapter-1",
      "candidates": [
        {
          "ordinal": 0,
          "pod": "adapter-0",
          "rejected": {
            "plugin": "FakeCapacity",
            "code": "Unschedulable",
            "reasons": [
              "pod has no free capacity"
            ]
          },
          "feasible": false,
          "total": 0
        },
        {
          "ordinal": 1,
          "pod": "adapter-1",
          "feasible": true,
          "scores": [
            {
              "plugin": "FakeLowestOrdinal",
              "score": 50,
              "weight": 3,
              "weighted": 150
            }
          ],
          "total": 150
        }
      ]
    }
  ]
}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	var back framework.Explanation
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	ex.Mode, ex.Key = back.Mode, back.Key
	if diff := cmp.Diff(ex, &back); diff != "" {
		t.Errorf("JSON round trip (-before +after):\n%s", diff)
	}
}

func TestExplanationAppends(t *testing.T) {
	// Run appends, so one explanation can hold several runs on a decision.
	p := newProfile(t, framework.Place, capacityOnly())
	d, _ := framework.NewDecision(framework.Place, fourPods(), nil, nil)
	ex := &framework.Explanation{}
	for range 2 {
		if _, err := p.Run(context.Background(), d, 1, ex); err != nil {
			t.Fatal(err)
		}
	}
	if len(ex.Steps) != 2 || ex.Steps[0].VReplica != 1 || ex.Steps[1].VReplica != 1 {
		t.Errorf("steps: %+v", ex.Steps)
	}
}
