package descheduler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// scanWorld is a StatefulSet "adapter" on nodes named "<zone><i>".
type scanWorld struct {
	t  *testing.T
	st *state.State
	rv int
}

func newScanWorld(t *testing.T, capacity int32) *scanWorld {
	st, err := state.New(state.Options{StatefulSetName: "adapter", Capacity: capacity})
	if err != nil {
		t.Fatal(err)
	}
	return &scanWorld{t: t, st: st}
}

// node records a node of zone zone[0], cordoned or not.
func (w *scanWorld) node(name string, cordoned bool) {
	w.st.UpsertNode(&corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{state.DefaultZoneLabel: "zone-" + name[:1]}},
		Spec:       corev1.NodeSpec{Unschedulable: cordoned},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}, t0)
}

func (w *scanWorld) pod(ord int32, node string) {
	w.st.UpsertPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: vsched.PodName("adapter", ord)}, Spec: corev1.PodSpec{NodeName: node}})
}

// commit records a source's status showing placements (ordinal, count
// pairs).
func (w *scanWorld) commit(name string, pairs ...int32) {
	var ps []vsched.Placement
	var total int32
	for i := 0; i+1 < len(pairs); i += 2 {
		ps = append(ps, vsched.Placement{PodName: vsched.PodName("adapter", pairs[i]), VReplicas: pairs[i+1]})
		total += pairs[i+1]
	}
	w.rv++
	w.st.Observe(&vsched.PlainVPod{Key: types.NamespacedName{Namespace: "ns", Name: name}, VReplicas: total, Placements: ps,
		ResourceVersion: fmt.Sprint(w.rv)}, t0)
}

// scan runs the scan and a full RebalanceMoves on copies of the state, and
// fails when they differ.
func (w *scanWorld) scan(sc *descheduler.RebalanceScan, place *framework.Profile, listed map[types.NamespacedName]vsched.VPod,
	skip map[types.NamespacedName]bool, budget int32) []string {
	w.t.Helper()
	ctx := context.Background()
	got := sc.Moves(ctx, place, w.st.Clone(), listed, skip, budget, 10)
	want := descheduler.RebalanceMoves(ctx, place, w.st.Clone(), listed, skip, budget, 10)
	if d := cmp.Diff(want, got); d != "" {
		w.t.Fatalf("the scan (full %v, %d looked at) differs from a full scan (-full +scan):\n%s", sc.Full, sc.Checked, d)
	}
	if d := cmp.Diff(decisionPerSource(ctx, place, w.st.Clone(), listed, skip, budget, 10), want); d != "" {
		w.t.Fatalf("RebalanceMoves differs from a Decision per source (-per source +RebalanceMoves):\n%s", d)
	}
	var out []string
	for _, m := range got {
		out = append(out, fmt.Sprintf("%s:%d", m.Source.Name, m.VReplicas))
	}
	return out
}

// decisionPerSource is what RebalanceMoves finds, found the plain way: a
// Decision for every source and Rebalance on it, in key order, until the
// budget is spent.
func decisionPerSource(ctx context.Context, place *framework.Profile, st *state.State, listed map[types.NamespacedName]vsched.VPod,
	skip map[types.NamespacedName]bool, budget, perSource int32) []evictor.Move {
	var out []evictor.Move
	for _, k := range st.Sources() {
		ps, _ := st.Placements(k)
		v := descheduler.ListedOr(listed, k, st.VReplicasOf(k), ps)
		if len(ps) == 0 || skip[k] || v.GetVReplicas() != vsched.TotalVReplicas(ps) {
			continue
		}
		d, err := framework.NewDecision(framework.Place, st, v, ps)
		if err != nil {
			continue
		}
		res, err := place.Rebalance(framework.WithoutReason(ctx), d, perSource)
		if err != nil || res.Moved == 0 {
			continue
		}
		if res.Moved > budget {
			break
		}
		budget -= res.Moved
		out = append(out, evictor.Move{Source: k, VReplicas: res.Moved})
	}
	return out
}
