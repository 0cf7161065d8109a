package embedkit

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"knative.dev/pkg/configmap"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/sourceautoscaler"
	"github.com/vsched/vsched/sourceautoscaler/decision"
	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// Reasons of the source autoscaler's Events, on the sources.
const (
	// ReasonVReplicasScaled: the source's vreplicas were written.
	ReasonVReplicasScaled = "VReplicasScaled"
	// ReasonVReplicasWriteFailed: writing them failed (retried next cycle).
	ReasonVReplicasWriteFailed = "VReplicasWriteFailed"
	// ReasonSignalMissing: the first cycle without a value for the source.
	ReasonSignalMissing = "SignalMissing"
	// ReasonInvalidAnnotation: an autoscaling annotation is broken; the
	// source keeps its last good policy.
	ReasonInvalidAnnotation = "InvalidAutoscalingAnnotation"
)

// SourceAutoscalerOptions turn on the source autoscaler, the level above
// the scheduler that decides each source's vreplicas from a demand signal
// (Options.SourceAutoscaler).
type SourceAutoscalerOptions struct {
	// Providers measure the sources (at least one).
	Providers []signal.Provider
	// Writer writes a source's vreplicas: sourceautoscaler.ScaleWriter
	// over the sources' scale subresource, or a WriterFunc.
	Writer sourceautoscaler.Writer
	// Config is config-source-autoscaler in force
	// (WatchSourceAutoscalerConfig); nil means its defaults.
	Config config.SourceAutoscalerSource
	// Kind and APIVersion of the sources, for the Events on them.
	Kind, APIVersion string
	// Recorder receives the Events on the sources; nil: Options.Recorder.
	Recorder record.EventRecorder
	// Clock and Tick: see sourceautoscaler.Options.
	Clock clock.Clock
	Tick  time.Duration
}

// WatchSourceAutoscalerConfig watches config-source-autoscaler in
// namespace through w (an absent ConfigMap means the defaults when w is
// knative's InformedWatcher) and returns what Options.SourceAutoscaler's
// Config reads. A rejected edit is logged and, with a recorder, reported
// on the ConfigMap; the last good configuration stays in force.
func WatchSourceAutoscalerConfig(ctx context.Context, w configmap.Watcher, namespace string, recorder record.EventRecorder) config.SourceAutoscalerSource {
	var reject config.RejectFunc
	if recorder != nil {
		reject = config.RecordRejections(recorder)
	}
	store := config.NewSourceAutoscalerStore(ctx, "", reject)
	store.WatchConfigs(w, namespace)
	return store.Config
}

// newSourceAutoscaler builds the source autoscaler of s: it acts while s's
// scheduler leads, and a source it grows pokes the pod autoscaler at once.
func (s *Scheduler) newSourceAutoscaler(o Options) error {
	so := o.SourceAutoscaler
	rec := so.Recorder
	if rec == nil {
		rec = o.Recorder
	}
	w := sourceWiring{s: s, rec: rec, kind: so.Kind, apiVersion: so.APIVersion}
	a, err := sourceautoscaler.New(sourceautoscaler.Options{
		Providers: so.Providers, Writer: so.Writer, Config: so.Config,
		IsLeader: s.IsLeader, OnDecision: w.decided, OnProblem: w.problem,
		Clock: so.Clock, Tick: so.Tick, Logger: o.Logger, MeterProvider: o.MeterProvider,
	})
	s.SourceAutoscaler = a
	return err
}

// SourceAutoscalerHandler returns the event handler that tells the source
// autoscaler about the sources: convert returns false for an object that is
// not autoscaled (it is then forgotten). Register it on the sources'
// informer next to SourceHandler; it does nothing without
// Options.SourceAutoscaler.
func (s *Scheduler) SourceAutoscalerHandler(convert func(obj any) (sourceautoscaler.Source, bool)) cache.ResourceEventHandlerFuncs {
	changed := func(obj any) {
		if s.SourceAutoscaler == nil {
			return
		}
		src, ok := convert(obj)
		if !ok {
			if m, err := meta.Accessor(obj); err == nil {
				s.SourceAutoscaler.Delete(types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()})
			}
			return
		}
		if err := s.SourceAutoscaler.Upsert(src); err != nil {
			s.Logger().Errorw("source not autoscaled", "source", src.Key.String(), "error", err)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    changed,
		UpdateFunc: func(_, obj any) { changed(obj) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if src, ok := convert(obj); ok && s.SourceAutoscaler != nil {
				s.SourceAutoscaler.Delete(src.Key)
			}
		},
	}
}

// sourceWiring turns the source autoscaler's decisions into Events and
// pod autoscaler triggers.
type sourceWiring struct {
	s                *Scheduler
	rec              record.EventRecorder
	kind, apiVersion string
}

func (w sourceWiring) decided(key types.NamespacedName, d decision.Decision, err error) {
	switch {
	case d.Desired == d.Current:
	case err == nil:
		if d.Desired > d.Current && w.s.Autoscaler != nil {
			// The new vreplicas may need pods: the pod autoscaler
			// sizes for them now, not at its next refresh.
			w.s.Autoscaler.Trigger()
		}
		w.event(key, corev1.EventTypeNormal, ReasonVReplicasScaled, d.Explain())
	case !errors.Is(err, sourceautoscaler.ErrNotLeader):
		w.event(key, corev1.EventTypeWarning, ReasonVReplicasWriteFailed, fmt.Sprintf("%s; writing failed: %v", d.Explain(), err))
	}
	if d.Mode == decision.Fallback && d.Missing == 1 {
		w.event(key, corev1.EventTypeWarning, ReasonSignalMissing, d.Explain())
	}
}

func (w sourceWiring) problem(key types.NamespacedName, err error) {
	w.event(key, corev1.EventTypeWarning, ReasonInvalidAnnotation, err.Error()+"; the last good settings stay in force")
}

func (w sourceWiring) event(key types.NamespacedName, typ, reason, msg string) {
	if w.rec == nil {
		return
	}
	ref := &corev1.ObjectReference{Kind: w.kind, APIVersion: w.apiVersion, Namespace: key.Namespace, Name: key.Name}
	w.rec.Event(ref, typ, reason, msg)
}
