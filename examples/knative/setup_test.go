package knative

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	k8stesting "k8s.io/client-go/testing"
	logtesting "knative.dev/pkg/logging/testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
)

// TestSchedulesASource runs the knative controller on memcluster's three
// pods (one per zone, capacity 2), creates a source ConfigMap wanting 4
// vreplicas, and sees its placements, lowest ordinals first, and an
// AllPlaced Scheduled condition written back to it.
func TestSchedulesASource(t *testing.T) {
	ctx, cancel := context.WithTimeout(logtesting.TestContextWithLogger(t), time.Minute)
	defer cancel()
	c, err := memcluster.New(ctx, memcluster.Options{Replicas: 3, Capacity: 2})
	if err != nil {
		t.Fatal(err)
	}
	kube := c.Client()
	// An API server stamps a new resourceVersion on every write; the fake
	// does not, and the scheduler tells a source's versions apart by it.
	var rv atomic.Int64
	kube.PrependReactor("*", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if o, ok := a.(interface{ GetObject() runtime.Object }); ok {
			o.GetObject().(metav1.Object).SetResourceVersion(strconv.FormatInt(rv.Add(1), 10))
		}
		return false, nil, nil
	})
	// Lowest ordinals first, so that the placements are known.
	policy := &corev1.ConfigMap{Data: map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}]`, "priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`}}
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), policy, nil)
	if err != nil {
		t.Fatal(err)
	}
	sources := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace("sources"))
	impl, sched, err := Setup(ctx, Options{
		Namespace: c.Namespace(), StatefulSet: c.StatefulSetName(), Capacity: c.Capacity(),
		Kube: kube, Cluster: c.InformerFactory(), Sources: sources, Profiles: profiles,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sched.Close()
	sources.Start(ctx.Done())
	defer sources.Shutdown()
	sources.WaitForCacheSync(ctx.Done())
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	go sched.Run(ctx)
	done := make(chan error)
	go func() { done <- impl.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	cms := kube.CoreV1().ConfigMaps("sources")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "sources", Name: "src"},
		Data:       map[string]string{KeyVReplicas: "4"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for cm.Data[KeyPlacements] == "" {
		// The controller writes once; a deadline means it never did.
		if ctx.Err() != nil {
			t.Fatal("the source was never scheduled")
		}
		time.Sleep(10 * time.Millisecond)
		if cm, err = cms.Get(ctx, "src", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := []vsched.Placement{
		{PodName: c.PodName(0), NodeName: "node-zone-a-0", ZoneName: "zone-a", VReplicas: 2},
		{PodName: c.PodName(1), NodeName: "node-zone-b-0", ZoneName: "zone-b", VReplicas: 2},
	}
	if diff := cmp.Diff(want, source{cm}.GetPlacements()); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
	if cond, ok := Scheduled(cm); !ok || cond.Type != "Scheduled" || cond.Status != metav1.ConditionTrue || cond.Reason != "AllPlaced" {
		t.Errorf("Scheduled condition = %+v; want True, AllPlaced", cond)
	}
}
