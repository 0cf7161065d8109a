package framework_test

import (
	"fmt"

	"github.com/vsched/vsched/framework"
)

// Places and Slack on pods of 20 slots and 4Gi, with vreplicas of 100Mi
// and 1000Mi: an empty pod has two places for the dearest, and light
// vreplicas take none of them until the pod's last two slots.
func ExampleHeavyRoom_Slack() {
	const mi = 1 << 20 * 1000 // a MiB in milli-bytes
	fit := framework.HeavyFit{Slots: 20, Capacity: 4096 * mi, Cheapest: 100 * mi, Dearest: 1000 * mi}
	fmt.Println(fit.Places(20, 4096*mi), fit.Places(2, 2296*mi), fit.Places(1, 2196*mi))
	// One pod in use with 18 light vreplicas (2 places), 200 vreplicas
	// waiting, 21 of them heavy: the 198 beyond the 2 free slots open
	// pods with 19.8 places, 21.8 in all. A light vreplica may give up
	// no place: 0.8 of one is left.
	h := framework.HeavyRoom{Fit: fit, Places: 2 * 900 * mi, Open: 2, Unplaced: 200, Need: 21 * 900 * mi}
	fmt.Println("short of a place:", h.Slack() < 900*mi)
	// Output:
	// 2 2 1
	// short of a place: true
}
