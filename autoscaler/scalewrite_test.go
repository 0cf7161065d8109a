package autoscaler

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

func TestAutoscalerRetriesConflict(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t)})
	var conflicts atomic.Int32
	e.c.Client().PrependReactor("update", "statefulsets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "scale" && conflicts.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "adapter", errors.New("modified"))
		}
		return false, nil, nil
	})
	e.create("a", 25)
	d := e.reconcile()
	if !d.Written || e.specReplicas() != 3 {
		t.Fatalf("decision = %+v, replicas %d", d, e.specReplicas())
	}
	if n := conflicts.Load(); n != 2 {
		t.Fatalf("%d scale updates, want a conflict then a success", n)
	}
}

func TestAutoscalerWritesOnlyFromTheSizeItDecidedFrom(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 3, profiles: packProfiles(t)})
	// Someone scaled to 5 after the cycle read 3.
	sets := e.c.Client().AppsV1().StatefulSets(e.c.Namespace())
	sc, err := sets.GetScale(e.ctx, e.c.StatefulSetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Spec.Replicas = 5
	if _, err := sets.UpdateScale(e.ctx, e.c.StatefulSetName(), sc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A scale-down decided from 3 is not written over 5.
	if ok, _, err := e.a.writeScale(e.ctx, 3, 2); ok || !errors.Is(err, errSizeChanged) {
		t.Fatalf("scale-down: written %v, err %v", ok, err)
	}
	// A scale-up to 4 is already covered by 5: nothing to write.
	if ok, _, err := e.a.writeScale(e.ctx, 3, 4); ok || err != nil {
		t.Fatalf("scale-up below the size: written %v, err %v", ok, err)
	}
	// A scale-up beyond it is safe to write.
	if ok, _, err := e.a.writeScale(e.ctx, 3, 6); !ok || err != nil || e.specReplicas() != 6 {
		t.Fatalf("scale-up: written %v, err %v, replicas %d", ok, err, e.specReplicas())
	}
}

func TestAutoscalerOnlyTheLeaderScales(t *testing.T) {
	e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t)})
	follower := e.addReplica(false, nil)
	e.create("a", 35)
	df, err := follower.a.Reconcile(e.ctx)
	if err != nil || df.Action != ActionHold || df.Written {
		t.Fatalf("follower: %+v, %v", df, err)
	}
	d := e.reconcile()
	if !d.Written || d.Target != 4 {
		t.Fatalf("leader: %+v", d)
	}
	// Running side by side for a while, only the leader ever writes.
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { follower.a.Run(ctx); close(done) }()
	for i := 0; i < 5; i++ {
		e.step(30 * time.Second)
		e.reconcile()
	}
	cancel()
	<-done
	if n := e.scaleUpdates(); n != 1 {
		t.Fatalf("%d scale updates, want 1", n)
	}
}
