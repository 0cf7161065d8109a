package config

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"knative.dev/pkg/configmap"
)

// AutoscalerStore keeps the configuration parsed from the live
// config-autoscaler ConfigMap. Each change is parsed with
// ParseAutoscalerConfigMap, the function used at start-up; a change that
// fails is rejected (logged, reported to the RejectFunc) and the last good
// configuration stays in force. A deleted ConfigMap, when watched with a
// default (WatchConfigs with knative's InformedWatcher), means the defaults
// again.
//
// Config is safe to call from any goroutine and cheap (an atomic load and a
// copy): call it at each evaluation rather than keeping a config, so that a
// change applies from the next evaluation.
type AutoscalerStore struct {
	liveStore[AutoscalerConfig]
}

// NewAutoscalerStore returns a store for the ConfigMap name (""
// means DefaultAutoscalerConfigMapName) holding the defaults until the
// ConfigMap is seen. onReject may be nil.
func NewAutoscalerStore(ctx context.Context, name string, onReject RejectFunc) *AutoscalerStore {
	if name == "" {
		name = DefaultAutoscalerConfigMapName
	}
	s := &AutoscalerStore{}
	s.parse, s.updated, s.fields = ParseAutoscalerConfigMap, "autoscaler configuration updated", autoscalerLogFields
	def := DefaultAutoscalerConfig()
	def.ConfigMap = name
	s.init(ctx, name, onReject, def)
	return s
}

// Name returns the name of the ConfigMap the store watches.
func (s *AutoscalerStore) Name() string { return s.name }

// Config returns a copy of the configuration in force; the caller may keep
// or change it without affecting the store.
func (s *AutoscalerStore) Config() *AutoscalerConfig {
	c := *s.current.Load()
	return &c
}

// DrainMoveLimit is AutoscalerSource.DrainMoveLimit of the configuration in
// force, read without copying it: the scheduler reads it on its decision
// path, under its lock (statefulset.Config.DrainMoveLimit).
func (s *AutoscalerStore) DrainMoveLimit() int32 {
	return drainMoveLimit(s.current.Load())
}

// WatchConfigs registers the store with w. namespace is the namespace of the
// ConfigMap, used for the stand-in of an absent one when w can watch with a
// default (knative's InformedWatcher): then an absent or deleted ConfigMap
// means the defaults rather than a failed start.
func (s *AutoscalerStore) WatchConfigs(w configmap.Watcher, namespace string) {
	watch(w, s.name, namespace, s.OnConfigChanged)
}

// OnConfigChanged applies a new version of the ConfigMap. It is the
// configmap.Observer the store registers, and may be called directly.
// ConfigMaps with another name, and nil, are ignored.
func (s *AutoscalerStore) OnConfigChanged(cm *corev1.ConfigMap) { s.apply(cm) }

func autoscalerLogFields(cfg *AutoscalerConfig) []any {
	return []any{"minReplicas", cfg.MinReplicas, "maxReplicas", cfg.MaxReplicas,
		"stabilizationWindow", cfg.StabilizationWindow.String(), "scaleDownCooldown", cfg.ScaleDownCooldown.String(),
		"refreshPeriod", cfg.RefreshPeriod.String(), "maxScaleUpRate", cfg.MaxScaleUpRate,
		"policy", cfg.Policy, "utilizationUpper", cfg.UtilizationUpper, "utilizationLower", cfg.UtilizationLower,
		"compaction", cfg.Compaction, "maxMovesPerCycle", cfg.MaxMovesPerCycle, "maxMovesPerSource", cfg.MaxMovesPerSource,
		"unavailablePodGrace", cfg.UnavailablePodGrace.String(), "recommendOnly", cfg.RecommendOnly}
}
