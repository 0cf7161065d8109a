package sourceautoscaler

import (
	"context"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/util/retry"
)

// Writer writes a source's vreplicas. A source that no longer exists is
// reported with a NotFound API error (apierrors.NewNotFound), which the
// autoscaler drops silently.
type Writer interface {
	WriteVReplicas(ctx context.Context, key types.NamespacedName, vreplicas int32) error
}

// WriterFunc is a Writer from a function: the embedder's callback.
type WriterFunc func(ctx context.Context, key types.NamespacedName, vreplicas int32) error

// WriteVReplicas implements Writer.
func (f WriterFunc) WriteVReplicas(ctx context.Context, key types.NamespacedName, vreplicas int32) error {
	return f(ctx, key, vreplicas)
}

// ScaleWriter writes through the scale subresource of Resource, as an HPA
// does: any custom resource whose CRD declares one (specReplicasPath at
// its vreplicas). A conflict reads the scale again and retries.
type ScaleWriter struct {
	Scales   scale.ScalesGetter
	Resource schema.GroupResource
}

// WriteVReplicas implements Writer.
func (w ScaleWriter) WriteVReplicas(ctx context.Context, key types.NamespacedName, vreplicas int32) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := w.Scales.Scales(key.Namespace).Get(ctx, w.Resource, key.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if s.Spec.Replicas == vreplicas {
			return nil
		}
		next := &autoscalingv1.Scale{ObjectMeta: s.ObjectMeta, Spec: autoscalingv1.ScaleSpec{Replicas: vreplicas}}
		_, err = w.Scales.Scales(key.Namespace).Update(ctx, w.Resource, next, metav1.UpdateOptions{})
		return err
	})
}
