package config

import (
	"context"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/internal/lib/vlog"
)

// liveStore is what AutoscalerStore and SourceAutoscalerStore share: one
// ConfigMap's last good configuration, replaced by each version that
// parses and kept when one does not.
type liveStore[T any] struct {
	ctx      context.Context
	name     string
	onReject RejectFunc
	parse    func(*corev1.ConfigMap) (*T, error)
	// updated is the log message of an applied change, fields its fields.
	updated string
	fields  func(*T) []any

	mu      sync.Mutex // serialises updates
	current atomic.Pointer[T]
}

func (s *liveStore[T]) init(ctx context.Context, name string, onReject RejectFunc, def *T) {
	s.ctx, s.name, s.onReject = ctx, name, onReject
	s.current.Store(def)
}

// apply parses cm and, when it parses, puts it in force; a ConfigMap with
// another name, and nil, are ignored.
func (s *liveStore[T]) apply(cm *corev1.ConfigMap) {
	if cm == nil || cm.Name != s.name {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg, err := s.parse(cm)
	if err != nil {
		reject(s.ctx, s.onReject, cm, err)
		return
	}
	s.current.Store(cfg)
	kv := append([]any{"configmap", cm.Namespace + "/" + cm.Name}, s.fields(cfg)...)
	vlog.FromContext(s.ctx).Infow(s.updated, kv...)
}
