package sourceautoscaler

import (
	"context"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	scalefake "k8s.io/client-go/scale/fake"
	core "k8s.io/client-go/testing"
)

var sampleGR = schema.GroupResource{Group: "samples.vsched.dev", Resource: "samplesources"}

// fakeScales serves one source's scale subresource, failing the first
// `conflicts` updates with a conflict, as a concurrent writer would.
func fakeScales(replicas int32, conflicts int) (*scalefake.FakeScaleClient, *int32, *int) {
	c := &scalefake.FakeScaleClient{}
	current, updates := replicas, 0
	c.AddReactor("get", "samplesources", func(core.Action) (bool, runtime.Object, error) {
		return true, &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", ResourceVersion: "1"}, Spec: autoscalingv1.ScaleSpec{Replicas: current}}, nil
	})
	c.AddReactor("update", "samplesources", func(a core.Action) (bool, runtime.Object, error) {
		updates++
		if updates <= conflicts {
			return true, nil, apierrors.NewConflict(sampleGR, "s", nil)
		}
		s := a.(core.UpdateAction).GetObject().(*autoscalingv1.Scale)
		current = s.Spec.Replicas
		return true, s, nil
	})
	return c, &current, &updates
}

func TestScaleWriterRetriesConflicts(t *testing.T) {
	c, current, updates := fakeScales(2, 2)
	w := ScaleWriter{Scales: c, Resource: sampleGR}
	if err := w.WriteVReplicas(context.Background(), types.NamespacedName{Namespace: "ns", Name: "s"}, 7); err != nil {
		t.Fatal(err)
	}
	if *current != 7 || *updates != 3 {
		t.Errorf("vreplicas %d after %d updates; want 7 after 3 (two conflicts)", *current, *updates)
	}
	// Already there: no update.
	if err := w.WriteVReplicas(context.Background(), types.NamespacedName{Namespace: "ns", Name: "s"}, 7); err != nil || *updates != 3 {
		t.Errorf("a write of the same count updated: %v, %d updates", err, *updates)
	}
}

func TestScaleWriterGivesUpOnPersistentConflicts(t *testing.T) {
	c, current, _ := fakeScales(2, 1000)
	w := ScaleWriter{Scales: c, Resource: sampleGR}
	err := w.WriteVReplicas(context.Background(), types.NamespacedName{Namespace: "ns", Name: "s"}, 7)
	if !apierrors.IsConflict(err) || *current != 2 {
		t.Errorf("error %v, vreplicas %d; want a conflict and 2", err, *current)
	}
}

// TestDynamicScaleWriter: the dynamic client's scale subresource, with a
// conflict retried.
func TestDynamicScaleWriter(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "samples.vsched.dev", Version: "v1alpha1", Resource: "samplesources"}
	c := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "SampleSourceList"})
	replicas, updates := int64(2), 0
	c.PrependReactor("get", "samplesources", func(a core.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "scale" {
			return false, nil, nil
		}
		return true, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "autoscaling/v1", "kind": "Scale",
			"metadata": map[string]any{"name": "s", "namespace": "ns", "resourceVersion": "1"},
			"spec":     map[string]any{"replicas": replicas},
		}}, nil
	})
	c.PrependReactor("update", "samplesources", func(a core.Action) (bool, runtime.Object, error) {
		updates++
		if updates == 1 {
			return true, nil, apierrors.NewConflict(sampleGR, "s", nil)
		}
		obj := a.(core.UpdateAction).GetObject().(*unstructured.Unstructured)
		replicas, _, _ = unstructured.NestedInt64(obj.Object, "spec", "replicas")
		return true, obj, nil
	})
	w := DynamicScaleWriter{Client: c, Resource: gvr}
	if err := w.WriteVReplicas(context.Background(), types.NamespacedName{Namespace: "ns", Name: "s"}, 9); err != nil {
		t.Fatal(err)
	}
	if replicas != 9 || updates != 2 {
		t.Errorf("vreplicas %d after %d updates; want 9 after 2 (one conflict)", replicas, updates)
	}
}
