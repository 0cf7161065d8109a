package statefulset

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework/frameworktest"
)

// TestHeavyRoomPlacement checks exact placements of the heavy room rule
// (framework.Decision.TakesHeavyRoom) on one node of four pods of 4 slots
// and 1000Mi: light, 8 vreplicas at 100Mi, is placed before heavy, 4 at
// 400Mi. A pod holds at most two heavy vreplicas beside light ones (two
// and two make 1000Mi). The 12 vreplicas fill three pods only if two pods
// hold two heavy each: the heavy room, an empty pod's 2 places for each
// 4 vreplicas known, is 6 places for 4 heavy, 2 to spare.
func TestHeavyRoomPlacement(t *testing.T) {
	type want struct {
		Light, Heavy string          // placements, "ordinal:vreplicas"
		Used         map[int32]int32 // slots used per pod
	}
	tests := []struct {
		name string
		// heavyKnown creates heavy before light is placed: the state
		// counts its vreplicas as waiting.
		heavyKnown bool
		want       want
	}{{
		// Nothing dearer waits: light fills pods 0 and 1 as it would
		// without the rule, and heavy takes pod 2's two places, then
		// opens pod 3.
		name: "heavy unknown",
		want: want{Light: "0:4 1:4", Heavy: "2:2 3:2", Used: map[int32]int32{0: 4, 1: 4, 2: 2, 3: 2}},
	}, {
		// Light gives up pod 0's two places (the 2 to spare), then keeps
		// pod 1's: its last two vreplicas open pod 2. Heavy takes the
		// two places of pods 1 and 2: three pods, all full.
		name:       "heavy known",
		heavyKnown: true,
		want:       want{Light: "0:4 1:2 2:2", Heavy: "1:2 2:2", Used: map[int32]int32{0: 4, 1: 4, 2: 4}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newKubeCluster(t).addNode("n0", "za")
			for ord := int32(0); ord < 4; ord++ {
				c.addPod(ord, "n0")
			}
			c.scale(4)
			s := c.start(func(cfg *Config) {
				cfg.Capacity = 4
				cfg.PodResources = frameworktest.Resources("memory", "1000Mi")
			})
			costed(t, c, "light", 8, "memory=100Mi")
			if tt.heavyKnown {
				costed(t, c, "heavy", 4, "memory=400Mi")
			}
			var got want
			got.Light = short(scheduleOK(t, s, c, "light"))
			if !tt.heavyKnown {
				costed(t, c, "heavy", 4, "memory=400Mi")
			}
			got.Heavy = short(scheduleOK(t, s, c, "heavy"))
			got.Used = used(s)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
