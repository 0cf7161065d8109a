package config

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"knative.dev/pkg/configmap"
)

// SourceAutoscalerStore keeps the configuration parsed from the live
// config-source-autoscaler ConfigMap, as AutoscalerStore does for
// config-autoscaler: a change that fails to parse is rejected and the last
// good configuration stays in force; a deleted ConfigMap, watched with a
// default, means the defaults again.
type SourceAutoscalerStore struct {
	liveStore[SourceAutoscalerConfig]
}

// NewSourceAutoscalerStore returns a store for the ConfigMap name (""
// means DefaultSourceAutoscalerConfigMapName) holding the defaults until
// the ConfigMap is seen. onReject may be nil.
func NewSourceAutoscalerStore(ctx context.Context, name string, onReject RejectFunc) *SourceAutoscalerStore {
	if name == "" {
		name = DefaultSourceAutoscalerConfigMapName
	}
	s := &SourceAutoscalerStore{}
	s.parse, s.updated, s.fields = ParseSourceAutoscalerConfigMap, "source autoscaler configuration updated", sourceAutoscalerLogFields
	def := DefaultSourceAutoscalerConfig()
	def.ConfigMap = name
	s.init(ctx, name, onReject, def)
	return s
}

// Name returns the name of the ConfigMap the store watches.
func (s *SourceAutoscalerStore) Name() string { return s.name }

// Config returns the configuration in force, shared (an atomic load, no
// copy): it is a SourceAutoscalerSource. Do not change it; a new pointer
// means a new configuration.
func (s *SourceAutoscalerStore) Config() *SourceAutoscalerConfig { return s.current.Load() }

// WatchConfigs registers the store with w (see AutoscalerStore.WatchConfigs).
func (s *SourceAutoscalerStore) WatchConfigs(w configmap.Watcher, namespace string) {
	watch(w, s.name, namespace, s.OnConfigChanged)
}

// OnConfigChanged applies a new version of the ConfigMap; ConfigMaps with
// another name, and nil, are ignored.
func (s *SourceAutoscalerStore) OnConfigChanged(cm *corev1.ConfigMap) { s.apply(cm) }

func sourceAutoscalerLogFields(cfg *SourceAutoscalerConfig) []any {
	p := cfg.Policy
	return []any{"minScale", p.Min, "maxScale", p.Max, "lagThreshold", p.Target, "activationLagThreshold", p.ActivationThreshold,
		"pollingInterval", p.PollingInterval.String(), "cooldownPeriod", p.ScaleToZeroGrace.String(),
		"stableWindow", p.StableWindow.String(), "panicWindow", p.PanicWindow.String(), "scaleDownDelay", p.ScaleDownDelay.String()}
}
