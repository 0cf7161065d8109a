package state

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// TestHeavyRoom checks HeavyRoom's counts on two pods of 10 slots and
// 2Gi: light (100Mi) holds 4 on pod 0 and waits for 2 more, heavy
// (300Mi) waits for 5.
func TestHeavyRoom(t *testing.T) {
	s := costedState(t)
	if err := s.SetPodResources(costList("memory", "2Gi")); err != nil {
		t.Fatal(err)
	}
	s.Observe(vpod("light", 6, costList("memory", "100Mi"), p(0, 4)), t0)
	s.Observe(vpod("heavy", 5, costList("memory", "300Mi")), t0)
	fit := framework.HeavyFit{Slots: 10, Capacity: 2048 * mi, Cheapest: 100 * mi, Dearest: 300 * mi}
	tests := []struct {
		name string
		cost int64
		want framework.HeavyRoom
	}{
		// Pod 0: 6 free slots, 1648Mi left: (1648 - 6 x 100) / 200 = 5
		// places, 1000Mi of room. 7 vreplicas wait, heavy's 5 needing
		// 5 x 200Mi beyond the cheapest.
		{"light", 100 * mi, framework.HeavyRoom{Fit: fit, Places: 1000 * mi, Open: 6, Unplaced: 7, Need: 1000 * mi}},
		// Nothing dearer than heavy waits.
		{"heavy", 300 * mi, framework.HeavyRoom{Fit: fit, Places: 1000 * mi, Open: 6, Unplaced: 7}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, s.HeavyRoom(0, tt.cost)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// An empty pod has 5 places (1000Mi); one vreplica waits beyond the
	// 6 free slots: 1000Mi + 1000Mi x 1/10 - 1000Mi.
	if got, want := s.HeavyRoom(0, 100*mi).Slack(), 100*mi; got != want {
		t.Errorf("Slack() = %d, want %d", got, want)
	}
}

// TestHeavyRoomKeptAsMeasured changes a costed state at random (sources
// observed, reserved, forgotten, their costs and sizes changed, the pods'
// resources and capacity changed, pods deleted and back, a new leader's
// resync, reservations dropped, clones) and checks after each change that the counts
// kept as it changes are those measured afresh from its sources and pods.
func TestHeavyRoomKeptAsMeasured(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	s := costedState(t)
	costs := []string{"", "100Mi", "250Mi", "1000Mi"}
	for step := range 400 {
		name := fmt.Sprintf("s%d", rng.Intn(8))
		switch op := rng.Intn(10); {
		case op < 5:
			var ps []vsched.Placement
			for ord := range int32(2) {
				if n := int32(rng.Intn(4)); n > 0 {
					ps = append(ps, p(ord, n))
				}
			}
			v := vpod(name, int32(rng.Intn(12)), nil, ps...)
			if c := costs[rng.Intn(len(costs))]; c != "" {
				v.Cost = costList("memory", c, "cpu", fmt.Sprintf("%dm", 10*rng.Intn(3)))
			}
			v.ResourceVersion = fmt.Sprint(step + 2)
			s.Observe(v, t0)
		case op < 7:
			s.Reserve(key(name), int32(rng.Intn(12)), "1", []vsched.Placement{p(int32(rng.Intn(2)), int32(1+rng.Intn(3)))}, t0)
		case op < 8 && rng.Intn(3) == 0:
			// A pod gone (a scale-down) and back: no room while gone.
			if ord := int32(rng.Intn(2)); s.PodExists(ord) {
				s.DeletePod(vsched.PodName(sts, ord))
			} else if rng.Intn(2) == 0 {
				s.UpsertPod(mkPod(ord, "n0"))
			} else {
				// An autoscaler's simulation binds a virtual pod there.
				s.SetReplicas(ord)
				s.AddVirtualPods(2 - ord)
			}
		case op < 8:
			s.Forget(key(name), t0)
		case op < 9:
			mem := []string{"1Gi", "2Gi", "4Gi"}[rng.Intn(3)]
			if err := s.SetPodResources(costList("memory", mem, "cpu", "1")); err != nil {
				t.Fatal(err)
			}
		case op < 9 && rng.Intn(2) == 0:
			// A new leader's resync: what the API lists, some sources
			// gone; or reservations dropped, or the capacity changed.
			switch rng.Intn(3) {
			case 0:
				var vs []vsched.VPod
				for i := range 8 {
					if rng.Intn(2) == 0 {
						vs = append(vs, vpod(fmt.Sprintf("s%d", i), int32(rng.Intn(12)), costList("memory", costs[1+rng.Intn(3)]), p(0, int32(rng.Intn(3)))))
						vs[len(vs)-1].(*vsched.PlainVPod).ResourceVersion = fmt.Sprint(step + 2)
					}
				}
				s.Resync(vs, 0, t0, time.Minute)
			case 1:
				s.DropReservations()
			default:
				if err := s.SetCapacity(int32(4 + rng.Intn(10))); err != nil {
					t.Fatal(err)
				}
			}
		default:
			if rng.Intn(2) == 0 {
				s = s.Clone()
			} else {
				s = s.CloneFor(s.Sources())
			}
		}
		for dim := range s.ResourceNames() {
			for _, c := range []int64{0, 100 * mi, 250 * mi, 1000 * mi} {
				if diff := cmp.Diff(measuredHeavyRoom(s, dim, c), s.HeavyRoom(dim, c)); diff != "" {
					t.Fatalf("step %d, dimension %d, cost %d (-measured +kept):\n%s", step, dim, c, diff)
				}
			}
		}
	}
}

// measuredHeavyRoom is HeavyRoom measured from the state's sources and
// pods.
func measuredHeavyRoom(s *State, dim int, cost int64) framework.HeavyRoom {
	fit := s.heavyFit(dim)
	out := framework.HeavyRoom{Fit: fit}
	for _, k := range s.Sources() {
		sum, _ := s.Summary(k)
		n := int64(max(0, sum.VReplicas-sum.Held))
		out.Unplaced += n
		var c int64
		if v := s.SourceCost(k); v != nil {
			c = v[dim]
		}
		if c > cost {
			out.Need += n * (c - fit.Cheapest)
		}
	}
	for ord := range s.NumPods() {
		if s.Used(ord) <= 0 || !s.PodExists(ord) {
			continue
		}
		free := max(0, int64(s.opts.Capacity)-int64(s.Used(ord)))
		out.Open += free
		out.Places += fit.Places(free, fit.Capacity-s.ResourceUsed(ord, dim)) * (fit.Dearest - fit.Cheapest)
	}
	return out
}
