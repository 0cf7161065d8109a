package controller

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
)

// TestRunEventsInSourcesNamespace: an Event about a source (here
// VReplicasMoved, once a lost node's vreplicas moved) is written in the
// source's namespace, where `kubectl describe` looks for it, not dropped
// because the controller runs in another namespace.
func TestRunEventsInSourcesNamespace(t *testing.T) {
	e := startRun(t, 3, 10, map[string]string{
		config.KeyMinReplicas:         "3",
		config.KeyMaxReplicas:         "3",
		config.KeyUnavailablePodGrace: "0s",
		config.KeyRefreshPeriod:       "20ms",
	})
	if srcNS == e.cluster.Namespace() {
		t.Fatalf("the sources' namespace is the controller's (%s): the test would not tell them apart", srcNS)
	}
	src := e.api.create(t, v1alpha1.New(srcNS, "src", 6))
	e.waitFor(src.GetKey(), "to be placed", allPlaced)
	if err := e.cluster.FailNode("node-zone-c-0"); err != nil { // adapter-2's node
		t.Fatal(err)
	}
	e.waitFor(src.GetKey(), "to move off adapter-2", func(s *v1alpha1.SampleSource) bool {
		return vsched.PlacementForPod(s.Status.Placements, "adapter-2") == nil
	})
	eventually(t, runTimeout, "a VReplicasMoved Event about the source in its namespace", func() bool {
		list, err := e.cluster.Client().CoreV1().Events(srcNS).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, ev := range list.Items {
			if ev.Reason == embedkit.ReasonVReplicasMoved && ev.InvolvedObject.Name == "src" && ev.InvolvedObject.Namespace == srcNS {
				return true
			}
		}
		return false
	})
}
