package autoscaler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/costestimate"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/internal/lib/bounded"
	"github.com/vsched/vsched/internal/lib/vlog"
	"github.com/vsched/vsched/usage"
)

// Annotations the autoscaler reads and writes on the StatefulSet. The
// timestamps are RFC 3339; keeping them on the StatefulSet lets a restarted
// or newly elected autoscaler go on where its predecessor stopped.
const (
	// AnnotationScaleDownSince is when the autoscaler first saw that fewer
	// pods would hold every vreplica, in the current run of such cycles.
	// It is removed as soon as that stops being true.
	AnnotationScaleDownSince = "vsched.dev/scale-down-since"
	// AnnotationLastScaleUp is when the autoscaler last grew the
	// StatefulSet; no scale-down happens within the cooldown after it.
	AnnotationLastScaleUp = "vsched.dev/last-scale-up"
	// AnnotationPaused set to "true" stops every change the autoscaler
	// would make: sizes, drains and timestamps. It still computes and
	// reports its recommendation.
	AnnotationPaused = "vsched.dev/autoscaler-paused"
)

// Event reasons the autoscaler records on the StatefulSet.
const (
	ReasonScaledUp                = "ScaledUp"
	ReasonScaledDown              = "ScaledDown"
	ReasonCompactionStarted       = "CompactionStarted"
	ReasonCompactionCancelled     = "CompactionCancelled"
	ReasonPodDraining             = "PodDraining"
	ReasonScaleRecommended        = "ScaleRecommended"
	ReasonInvalidAutoscalerConfig = "InvalidAutoscalerConfig"
	ReasonMaxReplicasExceeded     = "MaxReplicasExceeded"
)

// DefaultMinTriggerInterval is the least time between two cycles started by
// Trigger rather than by the refresh period.
const DefaultMinTriggerInterval = time.Second

// Options configure an Autoscaler.
type Options struct {
	// Scheduler is the scheduler whose StatefulSet is scaled (a
	// *statefulset.Scheduler). Required.
	Scheduler Target
	// Client writes the StatefulSet's scale subresource and annotations
	// and the pods' draining annotations. Required.
	Client kubernetes.Interface
	// Recorder receives an Event on the StatefulSet for every change.
	// Optional.
	Recorder record.EventRecorder
	// Config returns the autoscaler configuration in force (from
	// config-autoscaler); it is called once per cycle, so changes apply at
	// the next. nil, or a nil result, means config.DefaultAutoscalerConfig.
	// A configuration that fails the autoscaler's own checks is ignored
	// and the last good one kept. The scheduler reads the same source's
	// move limit itself (statefulset.Config.DrainMoveLimit).
	Config config.AutoscalerSource
	// Cache reads the pods and the StatefulSet from informers' caches
	// (CacheFromFactory); without it the autoscaler reads them through
	// Client.
	Cache Cache
	// Requeue requeues a source whose vreplicas must leave a draining pod.
	// Without it compaction is off (only empty pods are removed).
	Requeue evictor.RequeueFunc
	// Clock defaults to the real clock.
	Clock clock.Clock
	// Policy overrides the configuration's policy when set. Whatever the
	// policy, the result is never below what the fit policy needs.
	Policy Policy
	// Usage feeds the triggers policy's cpu and memory triggers
	// (config.PolicyTriggers); nil: only its room triggers act.
	Usage UsageReader
	// PodUsage reads the adapter pods' measured usage (metrics.k8s.io in
	// a cluster, memcluster's UsageReader in tests), once per cycle: it
	// feeds CostEstimates and finds hot pods (config-autoscaler's
	// hot-pod keys, docs/autoscaler.md#hot-pods). nil: neither happens.
	PodUsage usage.Reader
	// CostEstimates receives, each cycle, a round of the pods' usage
	// shared among the sources on them; give the same one to the
	// scheduler (statefulset.Config.CostEstimates) so that the sources
	// that opt in count their measured costs. nil with PodUsage: the
	// autoscaler keeps its own, to weigh hot pods' vreplicas only.
	CostEstimates *costestimate.Measured
	// MeterProvider defaults to OpenTelemetry's global provider.
	MeterProvider metric.MeterProvider
	// MinTriggerInterval defaults to DefaultMinTriggerInterval.
	MinTriggerInterval time.Duration
	// Logger receives the autoscaler's logs; it defaults to the
	// scheduler's (Scheduler.Logger), then to the context's.
	Logger logr.Logger
}

// Action is what a cycle did (or, recommending only, would do).
type Action string

const (
	// ActionNone: the size is right.
	ActionNone Action = "None"
	// ActionScaleUp: the StatefulSet grows.
	ActionScaleUp Action = "ScaleUp"
	// ActionScaleDown: the StatefulSet shrinks (possibly also draining).
	ActionScaleDown Action = "ScaleDown"
	// ActionCompact: pods are draining so the StatefulSet can shrink
	// later; the size does not change yet.
	ActionCompact Action = "Compact"
	// ActionHold: a change is wanted but held back (stabilization window,
	// cooldown), or the autoscaler cannot decide safely (not leader,
	// informers not synced, lister failing).
	ActionHold Action = "Hold"
)

// Report is what one autoscaler cycle saw, decided and did, as Reconcile
// returns it. It is not a framework.Decision, which places one source.
type Report struct {
	// Time is when the cycle ran.
	Time time.Time
	// Action and Reason say what happened and why.
	Action Action
	Reason string
	// Policy is the policy consulted.
	Policy string
	// Current is spec.replicas as the cycle saw it; Desired what the
	// policy wants, bounded and rounded; Target the size set (or that
	// would be set), Current when nothing changes.
	Current, Desired, Target int32
	// Fit is the fit policy's answer.
	Fit int32
	// Pending is the vreplicas waiting for a pod; Unplaced those the
	// current size (counting pods still starting) cannot hold;
	// Unplaceable those no size up to the maximum can.
	Pending, Unplaced, Unplaceable int64
	// FreeCapacity is the free capacity of the pods the spec pays for.
	FreeCapacity int64
	// Unavailable is the vreplicas placed on pods that run nothing now
	// (missing, unbound, or on a lost node), as the cycle began: not
	// pending, but not running either (state.UnavailableVReplicas).
	Unavailable int64
	// Draining maps the ordinals the evictor has marked to the reason.
	Draining map[int32]string
	// Requeued are the sources handed to Requeue.
	Requeued []types.NamespacedName
	// Rebalancing are those of Requeued handed over not for a drain but
	// because their placements break a Rebalancer's rule that a move can
	// restore now (EvenZoneSpread once a zone is back).
	Rebalancing []types.NamespacedName
	// CompactionCancelled says drains were lifted because demand returned.
	CompactionCancelled bool
	// Written is true when the cycle changed the StatefulSet's size.
	Written bool
	// RecommendOnly is true when nothing was written because of the
	// recommend-only mode or the pause annotation.
	RecommendOnly bool
	// PendingAtMax is set when the sources need more pods than
	// max-replicas allows: what that size would leave pending, per source,
	// sorted by key. No drain starts then.
	PendingAtMax []SourcePending
	// ScaleDownSince and LastScaleUp are the timestamps in force.
	ScaleDownSince, LastScaleUp time.Time
	// Simulations is how many simulated sizes the cycle tried.
	Simulations int
	// HotPods are the pods whose measured usage is over their hot-pod
	// limit, in the grace or shedding, by ordinal; Shed the vreplicas hot
	// pods began to shed this cycle (docs/autoscaler.md#hot-pods).
	HotPods []int32
	Shed    int32
	// UnboundPods are the pods below the size that have waited for a node
	// longer than the unavailable-pod grace, by ordinal: not counted as
	// room, so the vreplicas that would wait for them are in Unplaced.
	UnboundPods []UnboundPod
}

type scaleTimers struct {
	loaded         bool
	scaleDownSince time.Time
	lastScaleUp    time.Time
}

// Autoscaler sizes one scheduler's StatefulSet (docs/autoscaler.md).
type Autoscaler struct {
	cfg     Options
	sched   Target
	key     types.NamespacedName
	clock   clock.Clock
	drainer *evictor.Drainer
	log     *zap.SugaredLogger // nil: the context's
	metrics *autoscalerMetrics
	wake    chan struct{}

	cfgMu      sync.Mutex
	good       *config.AutoscalerConfig
	bad        *config.AutoscalerConfig
	badErr     error
	badPending bool

	// mu serialises cycles.
	mu sync.Mutex
	// rebalance is the search for sources to rebalance, kept between
	// cycles so that a cycle looks only at what changed.
	rebalanceScan  descheduler.RebalanceScan
	rebalanceScans int // how many cycles looked at some source, for tests
	// slotHints remembers, by position in the lister's list, the state's
	// slot of each source last cycle (simulator): the list rarely moves,
	// so a cycle finds most sources without hashing their keys.
	slotHints []int32
	// triggers is the triggers policy, kept between cycles: its points
	// are its memory (triggerPolicy).
	triggers *TriggerPolicy
	leading  bool
	timers   scaleTimers
	// overReported is the shortfall at max-replicas last logged and
	// evented, so a cycle that cannot progress does not repeat it.
	overReported    string
	lastCycle       time.Time
	lastRecommended int32
	// unboundReported are the pods waiting for a node last reported, so
	// that each is evented once.
	unboundReported map[UnboundPod]bool
	// estimates are Options.CostEstimates, or the autoscaler's own;
	// estimatesExpired and usageFailing are what was last reported of
	// them and of the usage reads. hot follows each pod's usage.
	estimates        *costestimate.Measured
	estimatesExpired bool
	usageFailing     bool
	hot              map[int32]*hotPod
	// fed are the sources fed to the estimates (forgetGone).
	fed map[types.NamespacedName]bool
}

// New builds the autoscaler of cfg.Scheduler and hooks it to the
// scheduler, so that a Schedule call leaving vreplicas pending triggers a
// cycle. Start it with Run, or drive it with Reconcile.
func New(ctx context.Context, cfg Options) (*Autoscaler, error) {
	switch {
	case cfg.Scheduler == nil:
		return nil, fmt.Errorf("autoscaler: Scheduler is required")
	case cfg.Client == nil:
		return nil, fmt.Errorf("autoscaler: Client is required")
	case cfg.MinTriggerInterval < 0:
		return nil, fmt.Errorf("autoscaler: MinTriggerInterval must not be negative, got %v", cfg.MinTriggerInterval)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.MinTriggerInterval == 0 {
		cfg.MinTriggerInterval = DefaultMinTriggerInterval
	}
	s := cfg.Scheduler
	key := s.StatefulSet()
	a := &Autoscaler{
		cfg:   cfg,
		sched: s,
		key:   key,
		clock: cfg.Clock,
		wake:  make(chan struct{}, 1),
		good:  config.DefaultAutoscalerConfig(),
		log:   s.Logger(),
		hot:   map[int32]*hotPod{},
	}
	if a.estimates = cfg.CostEstimates; a.estimates == nil && cfg.PodUsage != nil {
		a.estimates = costestimate.NewMeasured(costestimate.MeasuredOptions{Now: cfg.Clock.Now})
	}
	if l := vlog.Explicit(cfg.Logger); l != nil {
		a.log = l
	}
	dcfg := evictor.Config{
		Client:      cfg.Client,
		Namespace:   key.Namespace,
		StatefulSet: key.Name,
		Annotation:  s.DrainingAnnotation(),
		Scheduler:   s,
		Requeue:     cfg.Requeue,
	}
	// The informers' caches, when given; else the API server.
	if listPods := cfg.Cache.ListPods; listPods != nil {
		dcfg.Pods = func() ([]*corev1.Pod, error) { return listPods(key.Namespace) }
	}
	d, err := evictor.New(dcfg)
	if err != nil {
		return nil, err
	}
	a.drainer = d
	mp := cfg.MeterProvider
	if mp == nil {
		mp = otelMeterProvider()
	}
	if a.metrics, err = newAutoscalerMetrics(mp, key); err != nil {
		return nil, err
	}
	s.SetPendingHook(a.Trigger)
	s.SetStatefulSetReader(a.statefulSetFromAPI)
	a.logger(ctx).Infow("vsched autoscaler created", "statefulset", key.String())
	return a, nil
}

// logger is the autoscaler's logger, else the context's.
func (a *Autoscaler) logger(ctx context.Context) *zap.SugaredLogger { return vlog.Pick(ctx, a.log) }

// Trigger asks for a cycle as soon as possible (within MinTriggerInterval
// of the last one). It never blocks, and it never resets any timer: the
// stabilization window and the cooldown run on the StatefulSet's
// timestamps, which only a cycle's findings change.
func (a *Autoscaler) Trigger() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Marks are the drains the autoscaler's evictor holds, ordinal to reason
// (evictor.Reason*): a copy, for tests and tools.
func (a *Autoscaler) Marks() map[int32]string { return a.drainer.Marks() }

// Run runs a cycle at once, then one per refresh period and on every
// Trigger, until ctx is done. Only the leader acts; on other replicas a
// cycle returns at once.
func (a *Autoscaler) Run(ctx context.Context) {
	log := a.logger(ctx).With("statefulset", a.key.String())
	for {
		if _, err := a.Reconcile(ctx); err != nil && ctx.Err() == nil {
			log.Warnw("vsched autoscaler cycle failed", "error", err)
		}
		// A period of 0 would be a busy loop; the configuration check
		// rejects it, and this guards what the check lets through.
		period := max(a.config().RefreshPeriod, a.cfg.MinTriggerInterval)
		timer := a.clock.NewTimer(period)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C():
		case <-a.wake:
			timer.Stop()
			a.mu.Lock()
			wait := a.cfg.MinTriggerInterval - a.clock.Since(a.lastCycle)
			a.mu.Unlock()
			if wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-a.clock.After(wait):
				}
			}
		}
	}
}

// config returns the configuration in force: the latest one that passed
// config.ValidateAutoscalerConfig.
func (a *Autoscaler) config() *config.AutoscalerConfig {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	var c *config.AutoscalerConfig
	if a.cfg.Config != nil {
		c = a.cfg.Config()
	}
	// Stores hand out a copy per call: compare values, not pointers.
	if c == nil || c == a.good || *c == *a.good {
		return a.good
	}
	if a.bad != nil && *c == *a.bad {
		return a.good
	}
	if err := config.ValidateAutoscalerConfig(c); err != nil {
		bad := *c
		a.bad, a.badErr, a.badPending = &bad, err, true
		return a.good
	}
	a.good = c
	return c
}

// takeConfigProblem returns a rejected configuration's error once.
func (a *Autoscaler) takeConfigProblem() error {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	if !a.badPending {
		return nil
	}
	a.badPending = false
	return a.badErr
}

func (a *Autoscaler) policy(cfg *config.AutoscalerConfig) Policy {
	if a.cfg.Policy != nil {
		return a.cfg.Policy
	}
	if cfg != nil && cfg.Policy == config.PolicyTriggers {
		return a.triggerPolicy()
	}
	return policyFor(cfg)
}

// statefulSet reads the StatefulSet, from the informer when there is one.
func (a *Autoscaler) statefulSet(ctx context.Context) (*appsv1.StatefulSet, error) {
	if get := a.cfg.Cache.GetStatefulSet; get != nil {
		return get(a.key.Namespace, a.key.Name)
	}
	return a.statefulSetFromAPI(ctx)
}

// statefulSetFromAPI reads the StatefulSet from the API server, past any
// cache.
func (a *Autoscaler) statefulSetFromAPI(ctx context.Context) (*appsv1.StatefulSet, error) {
	return a.cfg.Client.AppsV1().StatefulSets(a.key.Namespace).Get(ctx, a.key.Name, metav1.GetOptions{})
}

// event records an Event on the StatefulSet, its message cut to
// bounded.EventLen: it may carry a rejected configuration's error or a list
// of pods, and Events are stored objects.
func (a *Autoscaler) event(set *appsv1.StatefulSet, typ, reason, format string, args ...any) {
	if a.cfg.Recorder != nil && set != nil {
		a.cfg.Recorder.Event(set, typ, reason, bounded.Cut(fmt.Sprintf(format, args...), bounded.EventLen))
	}
}

func parseTime(v string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}
	}
	return t
}

func formatTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// persistTimers writes the timestamps to the StatefulSet's annotations.
func (a *Autoscaler) persistTimers(ctx context.Context) error {
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]*string{
		AnnotationScaleDownSince: formatTime(a.timers.scaleDownSince),
		AnnotationLastScaleUp:    formatTime(a.timers.lastScaleUp),
	}}})
	if err != nil {
		return err
	}
	_, err = a.cfg.Client.AppsV1().StatefulSets(a.key.Namespace).Patch(ctx, a.key.Name, types.MergePatchType, body, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("autoscaler: writing timestamps to StatefulSet %s: %w", a.key, err)
	}
	return nil
}

// errSizeChanged means the StatefulSet's size changed under the cycle.
var errSizeChanged = errors.New("the StatefulSet's size changed since the cycle read it")

// writeScale sets spec.replicas through the scale subresource, retrying on
// conflict. A scale-up is written unless the size is already at least to;
// a scale-down only from the size the cycle decided from. It also returns
// the resource version at which the StatefulSet has the size to.
func (a *Autoscaler) writeScale(ctx context.Context, from, to int32) (bool, string, error) {
	sets := a.cfg.Client.AppsV1().StatefulSets(a.key.Namespace)
	written, rv := false, ""
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		written, rv = false, ""
		sc, err := sets.GetScale(ctx, a.key.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		switch have := sc.Spec.Replicas; {
		case have == to:
			rv = sc.ResourceVersion
			return nil
		case to > from && have > to:
			return nil
		case to < from && have != from:
			return errSizeChanged
		}
		sc.Spec.Replicas = to
		out, err := sets.UpdateScale(ctx, a.key.Name, sc, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		written, rv = true, out.ResourceVersion
		return nil
	})
	return written, rv, err
}

func hold(dec Report, reason string) (Report, error) {
	dec.Action, dec.Reason = ActionHold, reason
	dec.Target = dec.Current
	return dec, nil
}

// ordinals renders pods for Events: "adapter-3, adapter-4".
func ordinals(set string, ords []int32) string {
	names := make([]string, len(ords))
	for i, o := range ords {
		names[i] = vsched.PodName(set, o)
	}
	return strings.Join(names, ", ")
}

// sortedOrdinals returns the keys of m in ascending order, so that what a
// cycle does (and the Events it records) comes in a stable order.
func sortedOrdinals[V any](m map[int32]V) []int32 { return slices.Sorted(maps.Keys(m)) }
