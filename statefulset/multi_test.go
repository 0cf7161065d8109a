package statefulset

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// Two StatefulSets in one controller, sharing one informer factory, each
// with a scheduler of its own. The names are chosen so that one is a prefix
// of the other: "adapter-b-0" must not be taken for pod 0 of "adapter".
func TestSeveralStatefulSetsShareInformers(t *testing.T) {
	ctx := quietCtx()
	client := fake.NewSimpleClientset()
	mk := func(obj any) {
		var err error
		switch o := obj.(type) {
		case *corev1.Node:
			_, err = client.CoreV1().Nodes().Create(context.Background(), o, metav1.CreateOptions{})
		case *corev1.Pod:
			_, err = client.CoreV1().Pods(o.Namespace).Create(context.Background(), o, metav1.CreateOptions{})
		case *appsv1.StatefulSet:
			_, err = client.AppsV1().StatefulSets(o.Namespace).Create(context.Background(), o, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	mk(&corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n0", Labels: map[string]string{state.DefaultZoneLabel: "z0"}},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	})
	sets := map[string]int32{"adapter": 2, "adapter-b": 3}
	for name, replicas := range sets {
		mk(&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS}, Spec: appsv1.StatefulSetSpec{Replicas: ptrTo(replicas)}})
		for i := int32(0); i < replicas; i++ {
			mk(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: vsched.PodName(name, i), Namespace: testNS}, Spec: corev1.PodSpec{NodeName: "n0"}})
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(testNS))
	scheds := map[string]*Scheduler{}
	for name := range sets {
		store := newSourceStore()
		s, err := New(ctx, Config{
			Namespace: testNS, Name: name, Capacity: 4, Lister: store.List, ListerSynced: store.HasSynced,
			Informers: InformersFromFactory(factory), Profiles: lowestOrdinal(t), AlwaysLeader: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		scheds[name] = s
	}
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	deadline := time.Now().Add(10 * time.Second)
	for _, s := range scheds {
		for !s.HasSynced() {
			if time.Now().After(deadline) {
				t.Fatal("schedulers did not sync")
			}
			time.Sleep(time.Millisecond)
		}
	}
	for name, s := range scheds {
		var got string
		s.withState(func(st *state.State) { got = fmt.Sprint(st.Replicas(), st.Candidates()) })
		want := map[string]string{"adapter": "2 [0 1]", "adapter-b": "3 [0 1 2]"}[name]
		if got != want {
			t.Errorf("%s: replicas and candidates = %s, want %s", name, got, want)
		}
	}
	// Filling one StatefulSet leaves the other's pods free.
	src := &vsched.PlainVPod{Key: srcKey("a"), VReplicas: 8, ResourceVersion: "1"}
	ps, err := scheds["adapter"].Schedule(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ps); got != "[{adapter-0 z0 n0 4} {adapter-1 z0 n0 4}]" {
		t.Errorf("adapter placements = %s", got)
	}
	scheds["adapter-b"].withState(func(st *state.State) {
		for _, ord := range st.Candidates() {
			if st.Free(ord) != 4 {
				t.Errorf("adapter-b-%d has %d free, want 4", ord, st.Free(ord))
			}
		}
	})
}
