// Package plugintest holds what the in-tree plugins' tests share: a test
// source, decisions started from it, a profile run that checks the
// runtime's fast path against a fully evaluated one, and the loops of the
// table tests (Expect*), so that each plugin's test states only its cases.
package plugintest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// Source returns the test source ns/src, placed as placements, reporting
// resources as its own resource count (0 reports none).
func Source(resources int32, placements ...vsched.Placement) *frameworktest.VPod {
	v := frameworktest.NewVPod("ns", "src", vsched.TotalVReplicas(placements), placements...)
	v.Resources = resources
	return v
}

// Decide records src's placements as used on c, as a committed source's are,
// and starts a Place decision for src from them.
func Decide(t testing.TB, c *frameworktest.Cluster, src *frameworktest.VPod) *framework.Decision {
	t.Helper()
	return decide(t, framework.Place, c, src)
}

// DecideRemove is Decide for a Remove decision.
func DecideRemove(t testing.TB, c *frameworktest.Cluster, src *frameworktest.VPod) *framework.Decision {
	t.Helper()
	return decide(t, framework.Remove, c, src)
}

func decide(t testing.TB, mode framework.Mode, c *frameworktest.Cluster, src *frameworktest.VPod) *framework.Decision {
	t.Helper()
	c.UsePlacements(src.Placements)
	d, err := framework.NewDecision(mode, c, src, src.Placements)
	if err != nil {
		t.Fatalf("NewDecision: %v", err)
	}
	return d
}

// Run places n vreplicas of src with p twice, each time on a fresh cluster
// from newCluster: once on the runtime's fast path and once with an
// explanation, which evaluates every candidate. The two must agree, which is
// what the plugins' EquivalenceAware promises guarantee. It returns the
// result and the placements the decision leaves.
func Run(t testing.TB, newCluster func() *frameworktest.Cluster, src *frameworktest.VPod, p *framework.Profile, n int32) (framework.Result, []vsched.Placement) {
	t.Helper()
	res, placements, _ := runTwice(t, framework.Place, newCluster, src, p, n)
	return res, placements
}

// runRemove is Run for a Remove profile removing n vreplicas. It also
// returns the ordinal each step removed from, -1 for a step that found
// none, as the explanation tells.
func runRemove(t testing.TB, newCluster func() *frameworktest.Cluster, src *frameworktest.VPod, p *framework.Profile, n int32) (framework.Result, []vsched.Placement, []int32) {
	t.Helper()
	res, placements, ex := runTwice(t, framework.Remove, newCluster, src, p, n)
	var order []int32
	for _, s := range ex.Steps {
		order = append(order, s.Winner)
	}
	return res, placements, order
}

func runTwice(t testing.TB, mode framework.Mode, newCluster func() *frameworktest.Cluster, src *frameworktest.VPod, p *framework.Profile, n int32) (framework.Result, []vsched.Placement, *framework.Explanation) {
	t.Helper()
	var results [2]framework.Result
	var placements [2][]vsched.Placement
	ex := &framework.Explanation{}
	for i, explain := range []*framework.Explanation{nil, ex} {
		d := decide(t, mode, newCluster(), src)
		res, err := p.Run(context.Background(), d, n, explain)
		if err != nil {
			t.Fatalf("Run (explain %v): %v", explain != nil, err)
		}
		results[i], placements[i] = res, d.Placements()
	}
	if diff := cmp.Diff(placements[0], placements[1]); diff != "" {
		t.Errorf("fast path and full evaluation placed differently (-fast +full):\n%s", diff)
	}
	if diff := cmp.Diff(results[0], results[1]); diff != "" {
		t.Errorf("fast path and full evaluation ended differently (-fast +full):\n%s", diff)
	}
	return results[0], placements[0], ex
}

// Scores returns pl's score for every candidate pod of d.
func Scores(t testing.TB, pl framework.ScorePlugin, d *framework.Decision) map[int32]int64 {
	t.Helper()
	out := map[int32]int64{}
	for _, ord := range d.Cluster().Candidates() {
		sc, st := pl.Score(context.Background(), d, ord)
		if !st.IsSuccess() {
			t.Fatalf("Score(%d): %v", ord, st)
		}
		out[ord] = sc
	}
	return out
}

// At is the placement a decision reports for n vreplicas on the fixture pod
// with the ordinal, bound to node in zone.
func At(ordinal, n int32, node, zone string) vsched.Placement {
	return vsched.Placement{PodName: vsched.PodName(frameworktest.StatefulSetName, ordinal), NodeName: node, ZoneName: zone, VReplicas: n}
}

// Outcome is a filter result in a form cmp can compare: the code and the
// message, both empty for a pass.
type Outcome struct {
	Code    string
	Message string
}

// Pass is the Outcome of a pod that passes.
var Pass = Outcome{}

// Filter runs pl on the pod and returns its Outcome.
func Filter(pl framework.FilterPlugin, d *framework.Decision, ordinal int32) Outcome {
	st := pl.Filter(context.Background(), d, ordinal)
	if st.IsSuccess() {
		return Pass
	}
	return Outcome{Code: st.Code().String(), Message: st.Message()}
}
