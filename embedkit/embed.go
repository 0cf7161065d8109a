package embedkit

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/metric"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/costestimate"
	"github.com/vsched/vsched/sourceautoscaler"
	"github.com/vsched/vsched/statefulset"
	"github.com/vsched/vsched/usage"
)

// Options configure New. Namespace, StatefulSet, Capacity, Informers,
// Lister, ListerSynced, Profiles and Requeue are required.
type Options struct {
	// Namespace and StatefulSet name the adapter's StatefulSet; Capacity
	// is the most vreplicas one of its pods holds.
	Namespace, StatefulSet string
	Capacity               int32
	// Informers are the pods, nodes and StatefulSet informers
	// (statefulset.InformersFromFactory, or a controller-runtime cache's).
	Informers statefulset.Informers
	// AutoscalerCache reads the pods and the StatefulSet from the same
	// informers' caches for the autoscaler (autoscaler.CacheFromFactory);
	// its zero value reads them through Client.
	AutoscalerCache autoscaler.Cache
	// Lister, ListerSynced and FreshLister are the sources' (see
	// statefulset.Config); Lister builds the first from your objects.
	Lister       vsched.VPodLister
	ListerSynced func() bool
	FreshLister  vsched.VPodLister
	// Profiles are the scheduling policies (WatchConfigMaps, or
	// config.ProfilesFromConfigMaps with nil ConfigMaps for the
	// default policy).
	Profiles config.ProfilesSource
	// Requeue enqueues a source in the controller's work queue; it must not
	// block. The scheduler calls it when room appears for pending
	// vreplicas, the autoscaler when a source must leave a draining pod.
	Requeue statefulset.EnqueueFunc
	// Client enables the autoscaler, which writes the StatefulSet's scale
	// and the pods' draining annotations. nil: no autoscaler.
	Client kubernetes.Interface
	// AutoscalerConfig is config-autoscaler in force (WatchConfigMaps);
	// nil means its defaults. The autoscaler reads it each cycle, and the
	// scheduler its move limit at each Schedule call that moves
	// (statefulset.Config.DrainMoveLimit).
	AutoscalerConfig config.AutoscalerSource
	// DrainMoveLimit is the scheduler's move limit, with Client
	// (statefulset.Config.DrainMoveLimit); nil means AutoscalerConfig's,
	// which copies the configuration at each read.
	// LiveConfig.DrainMoveLimit reads the live one without.
	DrainMoveLimit func() int32
	// Recorder receives the autoscaler's Events on the StatefulSet.
	Recorder record.EventRecorder
	// CostEstimates are the estimates Usage feeds; nil with Usage means
	// costestimate.NewMeasured with its defaults.
	CostEstimates *costestimate.Measured
	// ResyncPeriod: 0 means statefulset.DefaultResyncPeriod.
	ResyncPeriod time.Duration
	// AlwaysLeader: see statefulset.Config. Set it where the controller
	// runs only while elected and stops when it loses the election
	// (controller-runtime's manager).
	AlwaysLeader bool
	// Logger receives the scheduler's and autoscaler's logs (see
	// statefulset.Config.Logger).
	Logger logr.Logger
	// MeterProvider receives the scheduler's and the autoscaler's metrics;
	// it defaults to OpenTelemetry's global provider.
	MeterProvider metric.MeterProvider
	// SourceAutoscaler, when set, turns on the source autoscaler, which
	// decides each source's vreplicas from a demand signal
	// (docs/source-autoscaler.md); feed it with SourceAutoscalerHandler.
	SourceAutoscaler *SourceAutoscalerOptions
	// Usage reads the adapter pods' measured usage (usage/metricsapi over
	// metrics.k8s.io), with Client. It feeds the triggers policy's cpu
	// and memory triggers (through autoscaler.MeasuredUsage), the cost
	// estimates of the sources that opt into a measured cost
	// (vsched.VReplicaCostMeasurer, the sample source's
	// "vsched.dev/vreplica-cost: measured"; docs/costs.md#measured-costs)
	// and the hot-pod shedding (autoscaler.Options.PodUsage). nil: only
	// room triggers act, costs are declared ones, no pod is hot.
	Usage usage.Reader
}

// Scheduler is a statefulset.Scheduler with its autoscaler.
type Scheduler struct {
	*statefulset.Scheduler
	// Autoscaler is nil when Options.Client was.
	Autoscaler *autoscaler.Autoscaler
	// SourceAutoscaler is nil without Options.SourceAutoscaler.
	SourceAutoscaler *sourceautoscaler.Autoscaler
}

// New builds the scheduler, registers its informer handlers, and builds its
// autoscaler when o.Client is set. Start the informers, then Run.
func New(ctx context.Context, o Options) (*Scheduler, error) {
	if o.Requeue == nil {
		return nil, fmt.Errorf("embedkit: Requeue is required")
	}
	scfg := statefulset.Config{
		Namespace: o.Namespace, Name: o.StatefulSet, Capacity: o.Capacity,
		Lister: o.Lister, ListerSynced: o.ListerSynced, FreshLister: o.FreshLister,
		Informers: o.Informers, Profiles: o.Profiles, Requeue: o.Requeue,
		ResyncPeriod: o.ResyncPeriod, AlwaysLeader: o.AlwaysLeader, Logger: o.Logger,
		MeterProvider: o.MeterProvider,
	}
	if o.Client != nil && o.Usage != nil {
		if o.CostEstimates == nil {
			o.CostEstimates = costestimate.NewMeasured(costestimate.MeasuredOptions{})
		}
		scfg.CostEstimates = o.CostEstimates
	}
	if o.Client != nil {
		// Only an autoscaler drains pods for compaction, in steps of
		// config-autoscaler's move limits.
		scfg.DrainMoveLimit = o.DrainMoveLimit
		if scfg.DrainMoveLimit == nil {
			scfg.DrainMoveLimit = o.AutoscalerConfig.DrainMoveLimit
		}
	}
	sched, err := statefulset.New(ctx, scfg)
	if err != nil {
		return nil, err
	}
	s := &Scheduler{Scheduler: sched}
	if o.SourceAutoscaler != nil {
		if err := s.newSourceAutoscaler(o); err != nil {
			sched.Close()
			return nil, err
		}
	}
	if o.Client == nil {
		return s, nil
	}
	measured, err := measuredUsage(o)
	if err != nil {
		sched.Close()
		return nil, err
	}
	// Untyped nils without a reader: the autoscaler tests the interfaces.
	var triggerUsage autoscaler.UsageReader
	var podUsage usage.Reader
	if measured != nil {
		triggerUsage, podUsage = measured, measured
	}
	s.Autoscaler, err = autoscaler.New(ctx, autoscaler.Options{
		Scheduler: sched, Client: o.Client, Recorder: o.Recorder, Config: o.AutoscalerConfig, Cache: o.AutoscalerCache,
		Usage: triggerUsage,
		Requeue: func(_ context.Context, src types.NamespacedName) error {
			o.Requeue(src)
			return nil
		},
		Logger: o.Logger, MeterProvider: o.MeterProvider, PodUsage: podUsage, CostEstimates: o.CostEstimates,
	})
	if err != nil {
		sched.Close()
		return nil, err
	}
	return s, nil
}

// Run runs the scheduler's periodic resync and the autoscaler until ctx is
// done. Leadership is the scheduler's (knative buckets through Promote and
// Demote, or Options.AlwaysLeader).
func (s *Scheduler) Run(ctx context.Context) {
	if s.Autoscaler != nil {
		go s.Autoscaler.Run(ctx)
	}
	if s.SourceAutoscaler != nil {
		go s.SourceAutoscaler.Run(ctx)
	}
	s.Scheduler.Run(ctx)
}
