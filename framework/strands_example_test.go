package framework_test

import (
	"fmt"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// Strands tells a pod where one more vreplica of a memory-heavy source
// would leave free slots that no source could pay for: InUsePodPriority
// then treats the pod as full for it.
func ExampleDecision_Strands() {
	// Pods of 20 slots and 4Gi; pod 0 holds 12 slots and 3000Mi, pod 1
	// 12 slots and 2000Mi. The cheapest source costs 100Mi a vreplica.
	c := ft.WithResources(ft.NewCluster(20).Node("n0", "za").Pods("n0", "n0").Use(0, 12).Use(1, 12),
		ft.Resources("memory", "4Gi")).
		UseResources(0, ft.Resources("memory", "3000Mi")).
		UseResources(1, ft.Resources("memory", "2000Mi")).
		Cheapest(ft.Resources("memory", "100Mi"))
	heavy := ft.NewVPod("ns", "heavy", 1)
	c.Cost(heavy.Key, ft.Resources("memory", "1000Mi"))
	d, err := framework.NewDecision(framework.Place, c, heavy, nil)
	if err != nil {
		panic(err)
	}
	for ord := int32(0); ord < 2; ord++ {
		fmt.Printf("pod %d: strands %v\n", ord, d.Strands(ord))
	}
	// Output:
	// pod 0: strands true
	// pod 1: strands false
}
