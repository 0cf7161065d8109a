package embedkit_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/embedkit"
)

// A Schedule result that left vreplicas pending becomes the Scheduled
// condition naming how many and the rule that bound them.
func ExampleCondition() {
	placed := []vsched.Placement{{PodName: "adapter-0", VReplicas: 4}, {PodName: "adapter-1", VReplicas: 4}}
	err := &vsched.PendingError{
		Key: types.NamespacedName{Namespace: "ns", Name: "src"}, Pending: 2,
		Reason: "no pod with free capacity in zone c",
	}
	c := embedkit.Condition(placed, err)
	fmt.Println(c.Type, c.Status, c.Reason)
	fmt.Println(c.Message)
	c = embedkit.Condition(placed, nil)
	fmt.Println(c.Type, c.Status, c.Reason)
	fmt.Println(c.Message)
	// Output:
	// Scheduled False NotEnoughCapacity
	// 2 vreplica(s) pending: no pod with free capacity in zone c
	// Scheduled True AllPlaced
	// 8 vreplica(s) placed on 2 pod(s)
}
