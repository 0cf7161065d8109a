package config

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"knative.dev/pkg/configmap"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/lib/bounded"
	"github.com/vsched/vsched/internal/lib/vlog"
)

// Names are the ConfigMaps a ProfilesStore watches.
type Names struct {
	// Scheduler defaults to DefaultSchedulerConfigMapName.
	Scheduler string
	// Descheduler defaults to DefaultDeschedulerConfigMapName.
	Descheduler string
}

func (n Names) withDefaults() Names {
	if n.Scheduler == "" {
		n.Scheduler = DefaultSchedulerConfigMapName
	}
	if n.Descheduler == "" {
		n.Descheduler = DefaultDeschedulerConfigMapName
	}
	return n
}

// RejectFunc is told of a ConfigMap that was rejected, with the reason. The
// last good configuration stays in force.
type RejectFunc func(cm *corev1.ConfigMap, err error)

// ProfilesStore keeps the profiles built from the live config-scheduler and
// config-descheduler ConfigMaps. Each change is parsed and built with
// BuildProfiles, the same function used at start-up; a change that fails is
// rejected (logged, reported to the RejectFunc) and the last good profiles
// stay in force. Profiles is safe to call from any goroutine and costs one
// atomic load.
type ProfilesStore struct {
	ctx      context.Context
	reg      *framework.Registry
	names    Names
	onReject RejectFunc

	mu      sync.Mutex // serialises updates
	sched   *PlaceConfig
	desched *RemoveConfig
	current atomic.Pointer[Profiles]
}

// NewProfilesStore returns a store holding the default policy until the ConfigMaps
// are seen. reg is required (plugins.NewInTreeRegistry for the in-tree
// plugins and default policy). onReject may be nil.
func NewProfilesStore(ctx context.Context, reg *framework.Registry, names Names, onReject RejectFunc) (*ProfilesStore, error) {
	s := &ProfilesStore{ctx: ctx, reg: reg, names: names.withDefaults(), onReject: onReject}
	ps, err := BuildProfiles(ctx, reg, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("building the default profiles: %w", err)
	}
	s.current.Store(ps)
	return s, nil
}

// Names returns the ConfigMap names the store watches.
func (s *ProfilesStore) Names() Names { return s.names }

// Profiles returns the profiles in force.
func (s *ProfilesStore) Profiles() *Profiles { return s.current.Load() }

// defaulting is implemented by watchers (knative's InformedWatcher) that can
// stand in an empty ConfigMap for one that does not exist, so that an absent
// ConfigMap means the default policy rather than a failed start.
type defaulting interface {
	WatchWithDefault(cm corev1.ConfigMap, o ...configmap.Observer)
}

// watch registers o for the ConfigMap name with w, with an empty stand-in
// for an absent one when w can (defaulting).
func watch(w configmap.Watcher, name, namespace string, o configmap.Observer) {
	if d, ok := w.(defaulting); ok {
		d.WatchWithDefault(corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}, o)
		return
	}
	w.Watch(name, o)
}

// reject logs a rejected ConfigMap and reports it to onReject (may be nil).
func reject(ctx context.Context, onReject RejectFunc, cm *corev1.ConfigMap, err error) {
	vlog.FromContext(ctx).Errorw("rejected ConfigMap; the last good configuration stays in force", "configmap", cm.Namespace+"/"+cm.Name, "error", err)
	if onReject != nil {
		onReject(cm, err)
	}
}

// WatchConfigs registers the store with w. namespace is the namespace of the
// ConfigMaps, used for the stand-in of an absent one.
func (s *ProfilesStore) WatchConfigs(w configmap.Watcher, namespace string) {
	for _, name := range []string{s.names.Scheduler, s.names.Descheduler} {
		watch(w, name, namespace, s.OnConfigChanged)
	}
}

// OnConfigChanged applies a new version of either ConfigMap. It is the
// configmap.Observer the store registers, and may be called directly.
func (s *ProfilesStore) OnConfigChanged(cm *corev1.ConfigMap) {
	if cm == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	log := vlog.FromContext(s.ctx)
	sched, desched := s.sched, s.desched
	var err error
	switch cm.Name {
	case s.names.Scheduler:
		sched, err = ParsePlaceConfigMap(cm, s.reg)
	case s.names.Descheduler:
		desched, err = ParseRemoveConfigMap(cm, s.reg)
	default:
		return
	}
	var ps *Profiles
	if err == nil {
		ps, err = BuildProfiles(s.ctx, s.reg, sched, desched)
	}
	if err != nil {
		reject(s.ctx, s.onReject, cm, err)
		return
	}
	s.sched, s.desched = sched, desched
	s.current.Store(ps)
	log.Infow("scheduling configuration updated", "configmap", cm.Namespace+"/"+cm.Name,
		"predicates", ps.Place.FilterNames(), "priorities", ps.Place.ScoreNames(), "deschedulerPriorities", ps.Remove.ScoreNames())
}

// ReasonInvalidConfiguration is the Event reason of a rejected ConfigMap.
const ReasonInvalidConfiguration = "InvalidConfiguration"

// RecordRejections returns a RejectFunc that emits a Warning Event on the
// rejected ConfigMap, so `kubectl describe configmap` shows why.
func RecordRejections(rec record.EventRecorder) RejectFunc {
	return func(cm *corev1.ConfigMap, err error) {
		rec.Event(cm, corev1.EventTypeWarning, ReasonInvalidConfiguration,
			bounded.Cut(err.Error(), bounded.EventLen)+"; the last good configuration stays in force")
	}
}
