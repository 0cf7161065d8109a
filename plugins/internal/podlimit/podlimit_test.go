package podlimit

import (
	"testing"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

func TestReached(t *testing.T) {
	p := frameworktest.P
	cases := []struct {
		name string
		held []int32 // ordinals holding one vreplica each
		set  func(d *framework.Decision)
		want bool
	}{
		{name: "no limit", held: []int32{0, 1, 2}, want: false},
		{name: "below", held: []int32{0}, set: func(d *framework.Decision) { Set(d, 2) }, want: false},
		{name: "at", held: []int32{0, 1}, set: func(d *framework.Decision) { Set(d, 2) }, want: true},
		{name: "above", held: []int32{0, 1, 2}, set: func(d *framework.Decision) { Set(d, 2) }, want: true},
		{name: "foreign value under the key", held: []int32{0, 1}, set: func(d *framework.Decision) { d.Store(key, "2") }, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := frameworktest.NewCluster(4).Node("n0", "").Pods("n0", "n0", "n0")
			vp := frameworktest.NewVPod("ns", "src", int32(len(tc.held)))
			for _, ord := range tc.held {
				vp.Placements = append(vp.Placements, p(ord, 1))
			}
			c.UsePlacements(vp.Placements)
			d, err := framework.NewDecision(framework.Place, c, vp, vp.Placements)
			if err != nil {
				t.Fatal(err)
			}
			if tc.set != nil {
				tc.set(d)
			}
			if got := Reached(d); got != tc.want {
				t.Errorf("Reached = %v, want %v", got, tc.want)
			}
		})
	}
}
