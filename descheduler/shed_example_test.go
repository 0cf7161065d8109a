package descheduler_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/descheduler"
)

// A pod 68Mi over its memory limit sheds one vreplica of its heaviest
// source: the fewest that bring it under.
func ExamplePlanShed() {
	src := func(n string) types.NamespacedName { return types.NamespacedName{Namespace: "ns", Name: n} }
	const mi = 1 << 20 * 1000 // one MiB in milli-units
	shares := []descheduler.HotShare{
		{Source: src("heavy"), VReplicas: 2, Weight: []int64{300 * mi}},
		{Source: src("mid"), VReplicas: 3, Weight: []int64{100 * mi}},
		{Source: src("light"), VReplicas: 2, Weight: []int64{50 * mi}},
	}
	moves, covered := descheduler.PlanShed(shares, []int64{68 * mi}, 100, 10)
	fmt.Println(moves, covered)
	moves, covered = descheduler.PlanShed(shares, []int64{700 * mi}, 2, 1)
	fmt.Println(moves, covered)
	// Output:
	// [{ns/heavy 1}] true
	// [{ns/heavy 1} {ns/mid 1}] false
}
