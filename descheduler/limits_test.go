package descheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/state"
)

func src(name string) types.NamespacedName { return types.NamespacedName{Namespace: "s", Name: name} }

func mv(name string, n int32) evictor.Move { return evictor.Move{Source: src(name), VReplicas: n} }

func TestPlanMoves(t *testing.T) {
	h := func(ord int32, name string, n int32) state.Holding {
		return state.Holding{Ordinal: ord, Source: src(name), VReplicas: n}
	}
	holdings := []state.Holding{
		h(5, "a", 4), h(5, "b", 2), h(5, "c", 7),
		h(4, "a", 3), h(4, "d", 1),
		h(3, "e", 6), h(3, "f", 2), h(3, "g", 1),
		h(1, "z", 9), // not a target
	}
	tests := []struct {
		name             string
		targets          []target
		perCycle, perSrc int32
		want             []evictor.Move
	}{
		{
			name:     "top down within the budget; a source counts once over its pods",
			targets:  []target{{ordinal: 5}, {ordinal: 4}},
			perCycle: 20, perSrc: 10,
			// a: 4+3 on targets = 7; b 2; c 7; d 1 -> 17.
			want: []evictor.Move{mv("a", 7), mv("b", 2), mv("c", 7), mv("d", 1)},
		},
		{
			name:     "the per-source cap bounds each move",
			targets:  []target{{ordinal: 5}, {ordinal: 4}},
			perCycle: 20, perSrc: 3,
			want: []evictor.Move{mv("a", 3), mv("b", 2), mv("c", 3), mv("d", 1)},
		},
		{
			name:     "the plan stops before the budget is exceeded",
			targets:  []target{{ordinal: 5}, {ordinal: 4}},
			perCycle: 8, perSrc: 10,
			want: []evictor.Move{mv("a", 7)},
		},
		{
			name:     "an excess takes the smallest sources until covered",
			targets:  []target{{ordinal: 3, Drain: Drain{Reason: evictor.ReasonOverCapacity, Excess: 3}}},
			perCycle: 100, perSrc: 10,
			want: []evictor.Move{mv("g", 1), mv("f", 2)},
		},
		{
			name:     "per-source cap above the cycle's counts as the cycle's",
			targets:  []target{{ordinal: 3}},
			perCycle: 2, perSrc: 50,
			want: []evictor.Move{mv("e", 2)},
		},
		{
			name:     "no targets",
			perCycle: 10, perSrc: 10,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := planMoves(holdings, tc.targets, tc.perCycle, tc.perSrc, nil)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
