package descheduler_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	meta "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/state"
)

// A cycle's search for sources to rebalance, kept from one cycle to the
// next: the first looks at every source, the next only at the one that
// changed; when zone c comes back (a change of shape) it looks at every
// source again and finds the one placed while the zone was down.
func ExampleRebalanceScan() {
	ctx, now := context.Background(), time.Now()
	reg := plugins.MustInTreeRegistry()
	sc, err := config.ParsePlaceConfigMapFromData(map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "EvenZoneSpread", "Args": {"MaxSkew": 1}}]`}, reg)
	if err != nil {
		panic(err)
	}
	profiles, err := config.BuildProfiles(ctx, reg, sc, nil)
	if err != nil {
		panic(err)
	}
	st, _ := state.New(state.Options{StatefulSetName: "adapter", Capacity: 10})
	node := func(zone string, cordoned bool) {
		st.UpsertNode(&corev1.Node{ObjectMeta: meta.ObjectMeta{Name: zone, Labels: map[string]string{state.DefaultZoneLabel: zone}},
			Spec:   corev1.NodeSpec{Unschedulable: cordoned},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}, now)
	}
	for ord, zone := range []string{"zone-a", "zone-b", "zone-c"} {
		node(zone, false)
		st.UpsertPod(&corev1.Pod{ObjectMeta: meta.ObjectMeta{Name: vsched.PodName("adapter", int32(ord))}, Spec: corev1.PodSpec{NodeName: zone}})
	}
	st.SetReplicas(3)
	// place records a source's status: perPod[i] vreplicas on pod i.
	place := func(name, rv string, perPod ...int32) {
		var ps []vsched.Placement
		for ord, n := range perPod {
			if n > 0 {
				ps = append(ps, vsched.Placement{PodName: vsched.PodName("adapter", int32(ord)), VReplicas: n})
			}
		}
		st.Observe(&vsched.PlainVPod{Key: types.NamespacedName{Namespace: "ns", Name: name}, VReplicas: vsched.TotalVReplicas(ps),
			Placements: ps, ResourceVersion: rv}, now)
	}
	place("even", "1", 1, 1, 1)
	var scan descheduler.RebalanceScan
	cycle := func() {
		moves := scan.Moves(ctx, profiles.Place, st.Clone(), nil, nil, 100, 10)
		fmt.Printf("looked at %d (all: %v), moves %v\n", scan.Checked, scan.Full, moves)
	}
	cycle()
	node("zone-c", true) // zone c down
	cycle()
	place("placed-while-down", "2", 2, 1, 0)
	cycle()
	node("zone-c", false) // back
	cycle()
	// Output:
	// looked at 1 (all: true), moves []
	// looked at 1 (all: true), moves []
	// looked at 1 (all: false), moves []
	// looked at 2 (all: true), moves [{ns/placed-while-down 1}]
}
