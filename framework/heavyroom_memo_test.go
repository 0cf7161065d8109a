package framework_test

import (
	"fmt"
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// heavyCluster is a CostCluster that counts the heavy room from its pods,
// with the vreplicas waiting and what the dearer ones need given.
type heavyCluster struct {
	*ft.CostCluster
	unplaced, need int64
}

func (c *heavyCluster) HeavyRoom(dim int, _ int64) framework.HeavyRoom {
	fit := framework.HeavyFit{Slots: int64(c.Capacity()), Capacity: c.ResourceCapacity(dim),
		Cheapest: c.CheapestCost(dim), Dearest: 1000 << 20 * 1000}
	h := framework.HeavyRoom{Fit: fit, Unplaced: c.unplaced, Need: c.need}
	for _, ord := range c.Candidates() {
		if free := int64(c.Free(ord)); free < fit.Slots {
			h.Open += max(0, free)
			h.Places += fit.Places(max(0, free), fit.Capacity-c.ResourceUsed(ord, dim)) * (fit.Dearest - fit.Cheapest)
		}
	}
	return h
}

// TestHeavyRoomMemo places and removes vreplicas of a 100Mi source at
// random on pods of 20 slots and 4Gi, with 1000Mi vreplicas waiting, and
// checks after every change that what the decision keeps of the heavy
// room (its counts, or its budget while the slack is ample) says what a
// fresh reading says.
func TestHeavyRoomMemo(t *testing.T) {
	const mi = int64(1 << 20 * 1000)
	seen := map[bool]int{}
	for seed := range int64(20) {
		rng := rand.New(rand.NewSource(seed))
		base := ft.NewCluster(20).Node("n0", "za")
		for range 8 {
			base = base.Pods("n0")
		}
		cc := ft.WithResources(base, ft.Resources("memory", "4Gi")).Cheapest(ft.Resources("memory", "100Mi"))
		for ord := range int32(4) {
			n := int32(rng.Intn(21))
			base.Use(ord, n)
			cc.UseResources(ord, ft.Resources("memory", fmt.Sprintf("%dMi", 100*n+900*int32(rng.Intn(3)))))
		}
		key := types.NamespacedName{Namespace: "ns", Name: "light"}
		cc.Cost(key, ft.Resources("memory", "100Mi"))
		c := &heavyCluster{CostCluster: cc, unplaced: int64(40 + rng.Intn(200)), need: int64(rng.Intn(30)) * 900 * mi}
		d, err := framework.NewDecision(framework.Place, c, &vsched.PlainVPod{Key: key, VReplicas: 100}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for step := range 120 {
			ord := int32(rng.Intn(8))
			delta := int32(1 + rng.Intn(3))
			if rng.Intn(4) == 0 && d.OnPod(ord) > 0 {
				delta = -min(delta, d.OnPod(ord))
			} else if d.Free(ord) < delta || d.ResourceFree(ord, 0) < int64(delta)*100*mi {
				continue
			}
			d.ApplyForTest(ord, delta)
			if got, want := d.HeavyRoomShort(), d.FreshHeavyRoomShort(); got != want {
				t.Fatalf("seed %d, step %d (%+d on pod %d): HeavyRoomShort() = %b, read afresh %b", seed, step, delta, ord, got, want)
			}
			seen[d.HeavyRoomShort() != 0]++
		}
	}
	if seen[true] < 50 || seen[false] < 50 {
		t.Errorf("steps short of a place / not: %d / %d, want at least 50 each", seen[true], seen[false])
	}
}
