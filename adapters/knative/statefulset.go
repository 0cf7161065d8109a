package knative

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"
	"knative.dev/eventing/pkg/scheduler"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// StatefulSetConfig is knative.dev/eventing's statefulset.Config as
// eventing-kafka-broker's consumergroup controller fills it, with the
// fields of the same names, plus what vsched needs that Knative's did not
// take (informers, a client, ListerSynced).
type StatefulSetConfig struct {
	StatefulSetNamespace, StatefulSetName string
	// PodCapacity is the most vreplicas one pod holds (1..vsched.MaxCapacity).
	PodCapacity int32
	// MinReplicas and RefreshPeriod become config-autoscaler's min-replicas
	// and refresh-period when Autoscaler is nil; 0 keeps the default.
	MinReplicas   int32
	RefreshPeriod time.Duration
	// Evictor is called, when the autoscaler drains a pod, once per
	// placement the source holds on it (see the package's
	// docs/eventing-kafka-broker.md). nil: Enqueue alone requeues.
	Evictor scheduler.Evictor
	// VPodLister lists the sources (an informer's lister). Required.
	VPodLister scheduler.VPodLister
	// PodLister, when set, gives the Evictor the pod object; otherwise
	// (or when the lister lacks it) the Evictor gets a pod with only its
	// namespace and name.
	PodLister corev1listers.PodNamespaceLister

	// ListerSynced reports whether VPodLister shows every source. Required.
	ListerSynced func() bool
	// Informers are the pods, nodes and StatefulSet informers. Required.
	Informers statefulset.Informers
	// Client writes the scale and the draining annotations: the autoscaler.
	// nil: no autoscaler (Knative's always had one).
	Client kubernetes.Interface
	// Profiles: nil means vsched's default policy.
	Profiles config.ProfilesSource
	// Autoscaler is config-autoscaler in force (a live store's Config);
	// when set, MinReplicas and RefreshPeriod must be 0 (set them there).
	Autoscaler config.AutoscalerSource
	// DrainingAnnotation defaults to Knative's scheduler.PodAnnotationKey
	// (eventing.knative.dev/unschedulable), so pods marked the Knative way
	// receive no vreplicas and are emptied.
	DrainingAnnotation string
	// AlwaysLeader, Logger and Clock: see statefulset.Config; Clock is for
	// tests (a memcluster's) and is given to the autoscaler too.
	AlwaysLeader bool
	Logger       logr.Logger
	Clock        clock.Clock
}

// StatefulSetScheduler is what Knative's statefulset.New returned, over
// vsched: the Knative scheduler, its autoscaler, and leadership through
// Promote and Demote (reconciler.LeaderAware).
type StatefulSetScheduler struct {
	*Scheduler
	// StatefulSet is vsched's scheduler; Autoscaler is nil without Client.
	StatefulSet *statefulset.Scheduler
	Autoscaler  *autoscaler.Autoscaler
	cfg         StatefulSetConfig
	enqueue     atomic.Pointer[statefulset.EnqueueFunc]
}

var _ reconciler.LeaderAware = (*StatefulSetScheduler)(nil)

// NewStatefulSet builds a vsched scheduler and autoscaler from Knative's
// configuration. Call SetEnqueue once the controller's work queue exists,
// start the informers, then Run.
func NewStatefulSet(ctx context.Context, cfg StatefulSetConfig, opts ...Option) (*StatefulSetScheduler, error) {
	if cfg.VPodLister == nil {
		return nil, errors.New("knative: StatefulSetConfig.VPodLister is required")
	}
	if cfg.DrainingAnnotation == "" {
		cfg.DrainingAnnotation = scheduler.PodAnnotationKey
	}
	as, err := autoscalerSource(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Profiles == nil {
		if cfg.Profiles, err = config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), nil, nil); err != nil {
			return nil, err
		}
	}
	s := &StatefulSetScheduler{cfg: cfg}
	sched, err := statefulset.New(ctx, statefulset.Config{
		Namespace: cfg.StatefulSetNamespace, Name: cfg.StatefulSetName, Capacity: cfg.PodCapacity,
		Lister: Lister(cfg.VPodLister), ListerSynced: cfg.ListerSynced, Informers: cfg.Informers,
		Profiles: cfg.Profiles, Requeue: s.enqueueKey, DrainMoveLimit: as.DrainMoveLimit,
		DrainingAnnotation: cfg.DrainingAnnotation, AlwaysLeader: cfg.AlwaysLeader,
		Logger: cfg.Logger, Clock: cfg.Clock,
	})
	if err != nil {
		return nil, err
	}
	s.StatefulSet, s.Scheduler = sched, New(sched, opts...)
	if cfg.Client == nil {
		return s, nil
	}
	s.Autoscaler, err = autoscaler.New(ctx, autoscaler.Options{
		Scheduler: sched, Client: cfg.Client, Config: as, Requeue: s.evict,
		Clock: cfg.Clock, Logger: cfg.Logger,
	})
	if err != nil {
		sched.Close()
		return nil, err
	}
	return s, nil
}

// autoscalerSource maps Knative's MinReplicas and RefreshPeriod onto
// config-autoscaler, validated as the ConfigMap would be.
func autoscalerSource(cfg StatefulSetConfig) (config.AutoscalerSource, error) {
	if cfg.Autoscaler != nil {
		if cfg.MinReplicas != 0 || cfg.RefreshPeriod != 0 {
			return nil, errors.New("knative: StatefulSetConfig.MinReplicas and RefreshPeriod must be 0 when Autoscaler is set: " +
				"set min-replicas and refresh-period in config-autoscaler instead")
		}
		return cfg.Autoscaler, nil
	}
	c := config.DefaultAutoscalerConfig()
	c.MinReplicas = cfg.MinReplicas
	if cfg.RefreshPeriod != 0 {
		c.RefreshPeriod = cfg.RefreshPeriod
	}
	if err := config.ValidateAutoscalerConfig(c); err != nil {
		return nil, fmt.Errorf("knative: StatefulSetConfig (MinReplicas %d, RefreshPeriod %v): %w", cfg.MinReplicas, cfg.RefreshPeriod, err)
	}
	return func() *config.AutoscalerConfig { return c }, nil
}

// SetEnqueue sets how a source is put back on the controller's work queue
// (impl.EnqueueKey): when room appears for pending vreplicas, and when the
// autoscaler must move a source that holds nothing on a draining pod
// (rebalancing). Until it is set those requeues are dropped, and the
// 5s requeue of a pending Schedule error still applies.
func (s *StatefulSetScheduler) SetEnqueue(f statefulset.EnqueueFunc) { s.enqueue.Store(&f) }

func (s *StatefulSetScheduler) enqueueKey(key types.NamespacedName) {
	if f := s.enqueue.Load(); f != nil && *f != nil {
		(*f)(key)
	}
}

// Promote and Demote make the scheduler lead for the buckets that hold its
// StatefulSet's key, as Knative's StatefulSetScheduler did.
func (s *StatefulSetScheduler) Promote(b reconciler.Bucket, enq func(reconciler.Bucket, types.NamespacedName)) error {
	return s.StatefulSet.Promote(b, enq)
}

// Demote: see Promote.
func (s *StatefulSetScheduler) Demote(b reconciler.Bucket) { s.StatefulSet.Demote(b) }

// Run runs the periodic resync and the autoscaler until ctx is done.
func (s *StatefulSetScheduler) Run(ctx context.Context) {
	if s.Autoscaler != nil {
		go s.Autoscaler.Run(ctx)
	}
	s.StatefulSet.Run(ctx)
}
