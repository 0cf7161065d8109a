package sourceautoscaler

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// DynamicScaleWriter writes through the scale subresource of Resource with
// the dynamic client: the same write as ScaleWriter for a controller that
// knows its resource and has no scale client (which needs discovery and a
// REST mapper). A conflict reads the scale again and retries.
type DynamicScaleWriter struct {
	Client   dynamic.Interface
	Resource schema.GroupVersionResource
}

// WriteVReplicas implements Writer.
func (w DynamicScaleWriter) WriteVReplicas(ctx context.Context, key types.NamespacedName, vreplicas int32) error {
	c := w.Client.Resource(w.Resource).Namespace(key.Namespace)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := c.Get(ctx, key.Name, metav1.GetOptions{}, "scale")
		if err != nil {
			return err
		}
		if n, found, _ := unstructured.NestedInt64(s.Object, "spec", "replicas"); found && n == int64(vreplicas) {
			return nil
		}
		if err := unstructured.SetNestedField(s.Object, int64(vreplicas), "spec", "replicas"); err != nil {
			return err
		}
		_, err = c.Update(ctx, s, metav1.UpdateOptions{}, "scale")
		return err
	})
}
