package statefulset

import (
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/metric"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
)

const (
	// DefaultResyncPeriod is how often the state is reconciled with the
	// sources' lister when Config.ResyncPeriod is 0.
	DefaultResyncPeriod = 5 * time.Minute
	// DefaultReservationTTL bounds how long a decision counts against
	// capacity without being seen in the source's status.
	DefaultReservationTTL = 2 * time.Minute
)

// EnqueueFunc adds a source's key to the controller's work queue, so that
// the controller schedules it again (knative's impl.EnqueueKey, for
// instance). It must not block, and it cannot fail: a work queue accepts
// every key. The autoscaler's requeue (evictor.RequeueFunc) is another
// type because it may fail, and a failed requeue is reported.
type EnqueueFunc func(types.NamespacedName)

// Config configures a Scheduler.
type Config struct {
	// Namespace and Name identify the StatefulSet.
	Namespace, Name string
	// Capacity is the most vreplicas one pod holds.
	Capacity int32
	// PodResources is what one pod can hold in each resource (memory,
	// CPU, any named resource), for the sources that declare a cost per
	// vreplica (vsched.VReplicaCoster). nil takes it from the
	// StatefulSet's pod template (TemplateResources) as the informer
	// shows it; an empty list bounds pods by their slots alone.
	PodResources corev1.ResourceList
	// CostEstimates gives measured costs per vreplica to the sources that
	// opt into one (vsched.VReplicaCostMeasurer); a declared resource
	// always wins (vsched.EffectiveVReplicaCost). A source's estimate is
	// read when the scheduler observes it (Schedule, Observe, a resync).
	// nil: declared costs only. costestimate.Measured implements it, fed
	// by the autoscaler (autoscaler.Options.CostEstimates). When it also
	// has Forget(keys ...types.NamespacedName), as Measured has, Forget
	// calls it: a deleted source's estimate goes with it.
	CostEstimates vsched.CostEstimates
	// Lister lists every source this scheduler places. Required.
	Lister vsched.VPodLister
	// FreshLister, when set, lists every source from the API server
	// rather than an informer's cache. A leadership term's first load uses
	// it instead of Lister: an informer that lags misses the statuses the
	// previous leader wrote last, and a new leader that loaded from it
	// could give their room away. A resync uses it too when some
	// reservation has outlived ReservationTTL: only a list at least as new
	// as the decision's status write may show that the write never
	// happened. It is called once per term, and by such resyncs, outside
	// the state lock: the calls that start a term together (workers'
	// first Schedule, the autoscaler, a resync) wait for one list and
	// share it, and the scheduler keeps no reference to it once loaded.
	FreshLister vsched.VPodLister
	// ListerSynced reports whether Lister shows every source: for a lister
	// backed by an informer, that informer's HasSynced. Required. A lister
	// whose informer has not synced lists nothing, without an error; a
	// scheduler that took that list for the truth would place new
	// vreplicas over committed ones it has not seen, and its autoscaler
	// would shrink a StatefulSet that is in use. Until it reports true,
	// Schedule answers vsched.ErrNotReady and the autoscaler holds.
	ListerSynced func() bool
	// Informers provide the pods, nodes and StatefulSet: the scheduler
	// registers its handlers; the caller starts them. Required (all three
	// or none, for tests that feed the state directly);
	// InformersFromFactory builds them from a SharedInformerFactory.
	Informers Informers
	// Profiles supplies the profiles. Required (see config.ProfilesFrom).
	Profiles config.ProfilesSource
	// Requeue is called, outside any lock, for each source with pending
	// vreplicas when capacity may have appeared. It must not block.
	Requeue EnqueueFunc
	// DrainMoveLimit returns how many of a source's vreplicas one Schedule
	// call moves off draining pods at most; the rest stay where they are
	// until the source is scheduled again. nil, or a result below 1, means
	// no bound. It is read, under the scheduler's lock, by each decision
	// that moves vreplicas off draining pods or rebalances (not by the
	// others), so a change applies from the next such Schedule call; it
	// must be cheap (config.AutoscalerStore.DrainMoveLimit allocates
	// nothing) and must not call the scheduler. A controller with an autoscaler passes
	// its config.AutoscalerSource's DrainMoveLimit (config-autoscaler's
	// max-moves-per-source), so that compaction moves each source in
	// bounded steps.
	DrainMoveLimit func() int32
	// ResyncPeriod is how often the state is reconciled with Lister;
	// 0 means DefaultResyncPeriod; negative is an error.
	ResyncPeriod time.Duration
	// ReservationTTL: 0 means DefaultReservationTTL; negative is an error.
	ReservationTTL time.Duration
	// DrainingAnnotation and ZoneLabel default to the state package's.
	DrainingAnnotation string
	ZoneLabel          string
	// AlwaysLeader makes the scheduler lead from the start, for controllers
	// that elect a leader some other way (or run one replica). Otherwise it
	// leads only while promoted for a bucket that holds the StatefulSet's
	// key (knative.dev/pkg/reconciler.LeaderAware).
	AlwaysLeader bool
	// Clock defaults to the real clock.
	Clock clock.PassiveClock
	// MeterProvider receives the scheduler's metrics (Metric*); it
	// defaults to OpenTelemetry's global provider.
	MeterProvider metric.MeterProvider
	// Logger receives the scheduler's logs when set. Otherwise they go to
	// knative.dev/pkg's logger in the context, else to a logr.Logger in
	// the context, else nowhere. Decisions log at Debug (logr's V(1)).
	Logger logr.Logger
}
