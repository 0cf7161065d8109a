package memcluster_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched/memcluster"
)

// TestNoNodesThenAddNode: a cluster built with NoNodes has none until
// AddNode, and its StatefulSet exists with no replicas.
func TestNoNodesThenAddNode(t *testing.T) {
	c := newCluster(t, memcluster.Options{NoNodes: true})
	if got := c.Nodes(); len(got) != 0 {
		t.Fatalf("Nodes() = %v, want none", got)
	}
	if err := c.AddNode(memcluster.NodeSpec{Name: "n0", Zone: "za"}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]memcluster.NodeSpec{{Name: "n0", Zone: "za"}}, c.Nodes()); d != "" {
		t.Errorf("Nodes() (-want +got):\n%s", d)
	}
	if set, err := c.StatefulSet(); err != nil || *set.Spec.Replicas != 0 {
		t.Errorf("StatefulSet() = %v, %v; want one with 0 replicas", set, err)
	}
}

// TestCreatePodByHand: CreatePod puts a pod at any ordinal on the node
// named, or on none, whatever the replicas; it refuses an existing pod and
// an unknown node.
func TestCreatePodByHand(t *testing.T) {
	c := newCluster(t, memcluster.Options{Replicas: 1})
	if err := c.CreatePod(4, "node-zone-c-0"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreatePod(2, ""); err != nil {
		t.Fatal(err)
	}
	want := map[int32]string{0: "node-zone-a-0", 2: "", 4: "node-zone-c-0"}
	if d := cmp.Diff(want, podNodes(t, c)); d != "" {
		t.Errorf("pods by node (-want +got):\n%s", d)
	}
	if err := c.CreatePod(4, ""); !apierrors.IsAlreadyExists(err) {
		t.Errorf("CreatePod on an existing pod: %v; want AlreadyExists", err)
	}
	if err := c.CreatePod(5, "nope"); err == nil {
		t.Error("CreatePod on an unknown node succeeded")
	}
	if err := c.CreatePod(-1, ""); err == nil {
		t.Error("CreatePod(-1) succeeded")
	}
}

// TestSetReplicasLeavesThePods: SetReplicas changes spec.replicas and
// nothing else, until Settle makes the pods follow.
func TestSetReplicasLeavesThePods(t *testing.T) {
	c, ctx := started(t, memcluster.Options{Replicas: 3})
	if err := c.SetReplicas(1); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	set, err := c.StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	ords, _ := c.PodOrdinals()
	if *set.Spec.Replicas != 1 || c.Replicas() != 3 || len(ords) != 3 {
		t.Fatalf("after SetReplicas(1): spec %d, Replicas() %d, pods %v; want 1, 3, [0 1 2]", *set.Spec.Replicas, c.Replicas(), ords)
	}
	if err := c.SetReplicas(-1); err == nil {
		t.Error("SetReplicas(-1) succeeded")
	}
	if n, err := c.Settle(); err != nil || n != 1 {
		t.Fatalf("Settle() = %d, %v; want 1", n, err)
	}
	if ords, _ := c.PodOrdinals(); len(ords) != 1 || c.Replicas() != 1 {
		t.Errorf("after Settle: pods %v, Replicas() %d; want [0], 1", ords, c.Replicas())
	}
}

// TestPodResourcesInTemplateAndPods: Options.PodResources is the template's
// container resources and every created pod's.
func TestPodResourcesInTemplateAndPods(t *testing.T) {
	res := corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
	c := newCluster(t, memcluster.Options{Replicas: 1, PodResources: res})
	set, err := c.StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	pod, err := c.Pod(0)
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string]corev1.ResourceRequirements{
		"template": set.Spec.Template.Spec.Containers[0].Resources,
		"pod":      pod.Spec.Containers[0].Resources,
	} {
		if d := cmp.Diff(res, got); d != "" {
			t.Errorf("%s resources (-want +got):\n%s", what, d)
		}
	}
}

// ExampleCluster_SetReplicas arranges a StatefulSet mid-scale by hand:
// spec.replicas written before the StatefulSet controller acted, a pod
// above it not removed yet, and one below it not created yet.
func ExampleCluster_SetReplicas() {
	c, err := memcluster.New(context.Background(), memcluster.Options{NoNodes: true})
	if err != nil {
		panic(err)
	}
	defer c.Shutdown()
	if err := c.AddNode(memcluster.NodeSpec{Name: "n0", Zone: "za"}); err != nil {
		panic(err)
	}
	for _, ord := range []int32{0, 3} {
		if err := c.CreatePod(ord, "n0"); err != nil {
			panic(err)
		}
	}
	if err := c.SetReplicas(2); err != nil {
		panic(err)
	}
	set, _ := c.StatefulSet()
	ords, _ := c.PodOrdinals()
	fmt.Printf("spec.replicas %d, pods %v\n", *set.Spec.Replicas, ords)
	n, _ := c.Settle()
	ords, _ = c.PodOrdinals()
	fmt.Printf("settled at %d, pods %v\n", n, ords)
	// Output:
	// spec.replicas 2, pods [0 3]
	// settled at 2, pods [0 1]
}
