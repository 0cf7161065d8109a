package config

import (
	"context"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"knative.dev/pkg/configmap"

	"github.com/vsched/vsched/internal/vlog"
)

// SourceAutoscalerStore keeps the configuration parsed from the live
// config-source-autoscaler ConfigMap, as AutoscalerStore does for
// config-autoscaler: a change that fails to parse is rejected and the last
// good configuration stays in force; a deleted ConfigMap, watched with a
// default, means the defaults again.
type SourceAutoscalerStore struct {
	ctx      context.Context
	name     string
	onReject RejectFunc

	mu      sync.Mutex // serialises updates
	current atomic.Pointer[SourceAutoscalerConfig]
}

// NewSourceAutoscalerStore returns a store for the ConfigMap name (""
// means DefaultSourceAutoscalerConfigMapName) holding the defaults until
// the ConfigMap is seen. onReject may be nil.
func NewSourceAutoscalerStore(ctx context.Context, name string, onReject RejectFunc) *SourceAutoscalerStore {
	if name == "" {
		name = DefaultSourceAutoscalerConfigMapName
	}
	s := &SourceAutoscalerStore{ctx: ctx, name: name, onReject: onReject}
	def := DefaultSourceAutoscalerConfig()
	def.ConfigMap = name
	s.current.Store(def)
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
func (s *SourceAutoscalerStore) OnConfigChanged(cm *corev1.ConfigMap) {
	if cm == nil || cm.Name != s.name {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg, err := ParseSourceAutoscalerConfigMap(cm)
	if err != nil {
		reject(s.ctx, s.onReject, cm, err)
		return
	}
	s.current.Store(cfg)
	p := cfg.Policy
	vlog.FromContext(s.ctx).Infow("source autoscaler configuration updated", "configmap", cm.Namespace+"/"+cm.Name,
		"minScale", p.Min, "maxScale", p.Max, "lagThreshold", p.Target, "activationLagThreshold", p.ActivationThreshold,
		"pollingInterval", p.PollingInterval.String(), "cooldownPeriod", p.ScaleToZeroGrace.String(),
		"stableWindow", p.StableWindow.String(), "panicWindow", p.PanicWindow.String(), "scaleDownDelay", p.ScaleDownDelay.String())
}
