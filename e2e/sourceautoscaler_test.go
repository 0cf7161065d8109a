//go:build e2e

package e2e

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/sourceautoscaler"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

// TestSourceAutoscalerWritesScale: the source autoscaler, acting as the
// sample controller's ServiceAccount (deploy/sample's RBAC), writes a
// source's vreplicas through the CRD's scale subresource on a real API
// server: spec.vreplicas changes, and the scale reads it back.
func TestSourceAutoscalerWritesScale(t *testing.T) {
	e := newEnv(t, 5*time.Minute, 0)
	e.createSource("lagging", 1)
	cfg, err := clientcmd.BuildConfigFromFlags("", e.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: sourcesNS, Name: "lagging"}
	clk := clocktesting.NewFakeClock(time.Now())
	prov := scripted.New("lag", clk.Now)
	prov.SetSeries(key.String(), scripted.Constant(750))
	a, err := sourceautoscaler.New(sourceautoscaler.Options{
		Providers: []signal.Provider{prov},
		Writer:    sourceautoscaler.DynamicScaleWriter{Client: dyn, Resource: v1alpha1.GroupVersionResource},
		Clock:     clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Upsert(sourceautoscaler.Source{Key: key, VReplicas: 1}); err != nil {
		t.Fatal(err)
	}
	// 750 lag over a threshold of 100, in panic (750 >= 2 x 1 x 100): 8.
	if st := a.Cycle(e.ctx); st.Written != 1 || st.WriteErrors != 0 {
		t.Fatalf("cycle: %+v", st)
	}
	u, err := e.sources().Get(e.ctx, key.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedInt64(u.Object, "spec", "vreplicas"); v != 8 {
		t.Errorf("spec.vreplicas = %d; want 8", v)
	}
	scale, err := e.sources().Get(e.ctx, key.Name, metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(scale.Object, "spec", "replicas"); r != 8 {
		t.Errorf("scale spec.replicas = %d; want 8", r)
	}
	// A source deleted before the next write: NotFound, dropped silently.
	e.deleteSource(key.Name)
	prov.SetSeries(key.String(), scripted.Constant(5000))
	clk.Step(10 * time.Second)
	if st := a.Cycle(e.ctx); st.Due != 1 || st.Written != 0 || st.WriteErrors != 0 {
		t.Errorf("writing to a deleted source: %+v", st)
	}
}
