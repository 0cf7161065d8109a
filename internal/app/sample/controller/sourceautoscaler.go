package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/sourceautoscaler"
)

// watchSourceAutoscalerConfig registers config-source-autoscaler with the
// ConfigMap watcher when the source autoscaler runs (before the watcher
// starts).
func (w *wiring) watchSourceAutoscalerConfig(ctx context.Context, o Options) {
	if len(o.SignalProviders) > 0 {
		w.sourceConfig = embedkit.WatchSourceAutoscalerConfig(ctx, w.cmw, o.Namespace, w.recorder)
	}
}

// sourceAutoscaler is the source autoscaler's part of embedkit.Options: nil
// without signal providers. It writes through the sources' scale
// subresource, as an HPA or KEDA would.
func (w *wiring) sourceAutoscaler(o Options) *embedkit.SourceAutoscalerOptions {
	if len(o.SignalProviders) == 0 {
		return nil
	}
	return &embedkit.SourceAutoscalerOptions{
		Providers: o.SignalProviders,
		Writer:    sourceautoscaler.DynamicScaleWriter{Client: o.Dynamic, Resource: v1alpha1.GroupVersionResource},
		Config:    w.sourceConfig,
		Kind:      v1alpha1.Kind, APIVersion: v1alpha1.GroupVersionKind.GroupVersion().String(),
	}
}

// toAutoscaledSource is how the source autoscaler sees a SampleSource: the
// first provider measures it, by its namespace/name, under its annotations.
func toAutoscaledSource(obj any) (sourceautoscaler.Source, bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return sourceautoscaler.Source{}, false
	}
	s, err := v1alpha1.FromUnstructured(u)
	if err != nil {
		return sourceautoscaler.Source{}, false
	}
	return sourceautoscaler.Source{
		Key:         types.NamespacedName{Namespace: s.Namespace, Name: s.Name},
		VReplicas:   s.Spec.VReplicas,
		Annotations: s.Annotations,
	}, true
}
