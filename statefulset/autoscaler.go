package statefulset

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
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
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/bounded"
	"github.com/vsched/vsched/internal/vlog"
	"github.com/vsched/vsched/state"
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

// compactionHorizonCycles bounds one compaction round to the vreplicas the
// per-cycle move budget moves in this many cycles. A round drains every pod
// it will remove at once, so nothing it moves lands on a pod drained
// later in the same round; bounding it keeps the simulation that validates
// it, and the capacity drained at once, small.
const compactionHorizonCycles = 10

// AutoscalerConfig configures an Autoscaler.
type AutoscalerConfig struct {
	// Scheduler is the scheduler whose StatefulSet is scaled. Required.
	Scheduler *Scheduler
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
	// and the last good one kept.
	Config func() *config.AutoscalerConfig
	// Requeue requeues a source whose vreplicas must leave a draining pod.
	// Without it compaction is off (only empty pods are removed).
	Requeue evictor.RequeueFunc
	// Clock defaults to the real clock.
	Clock clock.Clock
	// Policy overrides the configuration's policy when set. Whatever the
	// policy, the result is never below what the fit policy needs.
	Policy Policy
	// MeterProvider defaults to OpenTelemetry's global provider.
	MeterProvider metric.MeterProvider
	// MinTriggerInterval defaults to DefaultMinTriggerInterval.
	MinTriggerInterval time.Duration
	// Logger receives the autoscaler's logs; it defaults to the
	// scheduler's Config.Logger, then to the context's (see Config.Logger).
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

// Decision is the outcome of one autoscaler cycle.
type Decision struct {
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
}

type scaleTimers struct {
	loaded         bool
	scaleDownSince time.Time
	lastScaleUp    time.Time
}

// Autoscaler sizes one scheduler's StatefulSet. See AUTOSCALER.md.
type Autoscaler struct {
	cfg     AutoscalerConfig
	sched   *Scheduler
	key     types.NamespacedName
	clock   clock.Clock
	drainer *evictor.Drainer
	getSet  func(namespace, name string) (*appsv1.StatefulSet, error)
	metrics *autoscalerMetrics
	wake    chan struct{}
	log     *zap.SugaredLogger // nil: the context's (logger)

	cfgMu      sync.Mutex
	good       *config.AutoscalerConfig
	bad        *config.AutoscalerConfig
	badErr     error
	badPending bool

	// mu serialises cycles.
	mu sync.Mutex
	// rebalanceSeen is the cluster shape (rebalanceTrigger) the last scan
	// for sources to rebalance ran against; rebalanceAgain asks for another
	// scan although the shape is unchanged, because the last one found some.
	rebalanceSeen  string
	rebalanceAgain bool
	rebalanceScans int // how many scans ran, for tests
	leading        bool
	timers         scaleTimers
	// overReported is the shortfall at max-replicas last logged and
	// evented, so a cycle that cannot progress does not repeat it.
	overReported    string
	lastCycle       time.Time
	lastRecommended int32
}

// NewAutoscaler builds the autoscaler of cfg.Scheduler and hooks it to the
// scheduler, so that a Schedule call leaving vreplicas pending triggers a
// cycle. Start it with Run, or drive it with Reconcile.
func NewAutoscaler(ctx context.Context, cfg AutoscalerConfig) (*Autoscaler, error) {
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
	a := &Autoscaler{
		cfg:   cfg,
		sched: s,
		key:   s.key,
		clock: cfg.Clock,
		wake:  make(chan struct{}, 1),
		good:  config.DefaultAutoscalerConfig(),
		log:   s.log,
	}
	if vlog.Given(cfg.Logger) {
		a.log = vlog.FromLogr(cfg.Logger)
	}
	dcfg := evictor.Config{
		Client:      cfg.Client,
		Namespace:   s.key.Namespace,
		StatefulSet: s.key.Name,
		Annotation:  s.st.Options().DrainingAnnotation,
		Scheduler:   s,
		Requeue:     cfg.Requeue,
	}
	if list := s.cfg.Informers.ListPods; list != nil {
		ns := s.key.Namespace
		dcfg.Pods = func() ([]*corev1.Pod, error) { return list(ns) }
	}
	a.getSet = s.cfg.Informers.GetStatefulSet
	d, err := evictor.New(dcfg)
	if err != nil {
		return nil, err
	}
	a.drainer = d
	mp := cfg.MeterProvider
	if mp == nil {
		mp = otelMeterProvider()
	}
	if a.metrics, err = newAutoscalerMetrics(mp, s.key); err != nil {
		return nil, err
	}
	trigger := a.Trigger
	s.pendingHook.Store(&trigger)
	readSet := func(ctx context.Context) (*appsv1.StatefulSet, error) {
		return cfg.Client.AppsV1().StatefulSets(s.key.Namespace).Get(ctx, s.key.Name, metav1.GetOptions{})
	}
	s.readSet.Store(&readSet)
	a.logger(ctx).Infow("vsched autoscaler created", "statefulset", s.key.String())
	return a, nil
}

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

// Drainer is the autoscaler's evictor, for tests and tools.
func (a *Autoscaler) Drainer() *evictor.Drainer { return a.drainer }

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
	return policyFor(cfg)
}

// statefulSet reads the StatefulSet, from the informer when there is one.
func (a *Autoscaler) statefulSet(ctx context.Context) (*appsv1.StatefulSet, error) {
	if a.getSet != nil {
		return a.getSet(a.key.Namespace, a.key.Name)
	}
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

func hold(dec Decision, reason string) (Decision, error) {
	dec.Action, dec.Reason = ActionHold, reason
	dec.Target = dec.Current
	return dec, nil
}

// Reconcile runs one autoscaler cycle: it observes the StatefulSet, the
// sources and the scheduler's state, simulates the scheduler profile to
// find the size that fits every vreplica, asks the policy, and scales,
// drains or holds. It returns what it decided. An error means a write
// failed; conditions under which no safe decision exists (not leader,
// informers not synced, lister failing) are a Hold with the reason, and
// no error.
func (a *Autoscaler) Reconcile(ctx context.Context) (Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clock.Now()
	a.lastCycle = now
	cfg := a.config()
	pol := a.policy(cfg)
	s := a.sched
	dec := Decision{Time: now, Policy: pol.Name()}
	s.st.Lock()
	dec.Current = s.st.Replicas()
	s.st.Unlock()
	log := a.logger(ctx).With("statefulset", a.key.String())

	if !s.IsLeader() {
		a.leading = false
		return hold(dec, "not the leader")
	}
	if !a.leading {
		// A new term: what this replica remembered from an earlier one
		// is stale. The StatefulSet's and pods' annotations say where
		// the previous leader stopped.
		a.leading = true
		a.timers = scaleTimers{}
		a.overReported = ""
		a.drainer.Reset()
	}
	s.SetDrainMoveLimit(min(cfg.MaxMovesPerSource, cfg.MaxMovesPerCycle))
	if why := s.notReady(); why != "" {
		// An unsynced view shows too little: pods or sources missing
		// from it would look like idle capacity.
		return hold(dec, why+"; holding the current size")
	}
	set, err := a.statefulSet(ctx)
	if err != nil {
		return hold(dec, fmt.Sprintf("reading the StatefulSet failed (%v); holding the current size", err))
	}
	if err := a.takeConfigProblem(); err != nil {
		log.Errorw("vsched autoscaler: configuration rejected; the last good one stays in force", "error", err)
		a.event(set, corev1.EventTypeWarning, ReasonInvalidAutoscalerConfig, "autoscaler configuration rejected, the last good one stays in force: %v", err)
	}
	newTerm := !a.timers.loaded
	if newTerm {
		// The lister may not show yet what the previous leader wrote a
		// moment ago: read the StatefulSet from the API server once.
		fresh, err := a.cfg.Client.AppsV1().StatefulSets(a.key.Namespace).Get(ctx, a.key.Name, metav1.GetOptions{})
		if err != nil {
			return hold(dec, fmt.Sprintf("reading the StatefulSet failed (%v); holding the current size", err))
		}
		set = fresh
		a.timers = scaleTimers{
			loaded:         true,
			scaleDownSince: parseTime(set.Annotations[AnnotationScaleDownSince]),
			lastScaleUp:    parseTime(set.Annotations[AnnotationLastScaleUp]),
		}
	}
	paused := set.Annotations[AnnotationPaused] == "true"
	write := !paused && !cfg.RecommendOnly
	dec.RecommendOnly = !write

	vpods, err := s.cfg.Lister()
	if err != nil {
		return hold(dec, fmt.Sprintf("listing sources failed (%v); holding the current size", err))
	}
	profiles := s.cfg.Profiles()
	if profiles.Place == nil {
		return hold(dec, "no scheduling profile configured")
	}
	if write {
		if _, err := a.drainer.Adopt(ctx, newTerm); err != nil {
			log.Warnw("vsched autoscaler: reconciling drain marks with the pods failed", "error", err)
		}
	}
	snap, loadErr := s.CloneLoaded(ctx)
	if loadErr != nil {
		return hold(dec, fmt.Sprintf("scheduler state not loaded (%v); holding the current size", loadErr))
	}
	return a.decide(ctx, dec, cfg, pol, profiles, set, vpods, snap, write)
}

// drainWant is a drain the cycle wants other than compaction.
type drainWant struct {
	reason string
	excess int32
}

func (a *Autoscaler) decide(ctx context.Context, dec Decision, cfg *config.AutoscalerConfig, pol Policy, profiles config.Profiles,
	set *appsv1.StatefulSet, vpods []vsched.VPod, base *state.State, write bool) (Decision, error) {
	log := a.logger(ctx).With("statefulset", a.key.String())
	now := dec.Time
	current := base.Replicas()
	capacity := base.Capacity()
	dec.Current = current
	marks := a.drainer.Marks()
	compacting := a.drainer.CanRequeue() && cfg.Compaction

	// Drains wanted for other reasons than compaction: pods whose node is
	// lost beyond the grace, and pods over capacity. A pod someone else
	// drained is drained already.
	wants := map[int32]drainWant{}
	for ord := int32(0); ord < current && ord < base.NumPods(); ord++ {
		used := base.Used(ord)
		if base.Draining(ord) && !evictor.Owned(marks[ord]) {
			continue
		}
		// A pod on a lost node stays marked until the node is back,
		// emptied or not, so its mark is not written again and again.
		if since := base.NodeUnavailableSince(ord); !since.IsZero() && now.Sub(since) >= cfg.UnavailablePodGrace &&
			(used > 0 || marks[ord] == evictor.ReasonUnavailable) {
			wants[ord] = drainWant{reason: evictor.ReasonUnavailable}
		} else if used > capacity {
			wants[ord] = drainWant{reason: evictor.ReasonOverCapacity, excess: used - capacity}
		}
	}
	// The base of the simulations: compaction drains lifted (the cycle
	// decides them again), other drains as wanted now, starting pods
	// bound.
	var extra int32
	for ord, reason := range marks {
		if _, ok := wants[ord]; !ok && evictor.Owned(reason) {
			base.ClearDraining(ord)
		}
	}
	for ord, w := range wants {
		switch w.reason {
		case evictor.ReasonUnavailable:
			base.SetDraining(ord, true)
		case evictor.ReasonOverCapacity:
			base.ClearDraining(ord)
			extra += w.excess
		}
	}
	base.BindStartingPods()
	dec.FreeCapacity = base.FreeCapacity()

	// The sources: what each wants (the lister's spec; the state's last
	// word for a source the lister does not return) against what it holds.
	listed := make(map[types.NamespacedName]vsched.VPod, len(vpods))
	for _, v := range vpods {
		if v != nil {
			listed[v.GetKey()] = v
		}
	}
	// How low a scale-down may look this cycle: without compaction only
	// empty pods may go; with it, a round moves at most the horizon, and a
	// round in progress (drained pods still holding vreplicas) completes
	// before the next one starts, so nothing it moved has to move again.
	used := make([]int32, current)
	for ord := range used {
		used[ord] = base.Used(int32(ord))
	}
	var floor int32
	horizon := int64(0)
	if compacting {
		horizon = int64(cfg.MaxMovesPerCycle) * compactionHorizonCycles
		for ord, reason := range marks {
			if reason == evictor.ReasonCompaction && ord < current && used[ord] > 0 && (floor == 0 || ord < floor) {
				floor = ord
			}
		}
	}
	low := lowestSize(used, current, floor, horizon)
	limit := max(cfg.MaxReplicas, cfg.MinReplicas)

	var demand []*simSource
	var holders []holderRef
	var held int64
	listedSeen := 0
	base.EachSource(func(key types.NamespacedName, vreplicas int32, ps []vsched.Placement, hs []state.Held) {
		v, ok := listed[key]
		want := vreplicas
		if ok {
			want = v.GetVReplicas()
			listedSeen++
		}
		var kept int32
		maxOrd := int32(-1)
		for _, h := range hs {
			maxOrd = max(maxOrd, h.Ordinal)
			if h.Ordinal < current && !base.Draining(h.Ordinal) {
				kept += h.VReplicas
			}
		}
		held += int64(min(max(want, 0), kept))
		// Schedule refuses a source above MaxVReplicas: it is no
		// demand.
		if want > kept && want <= vsched.MaxVReplicas {
			demand = append(demand, &simSource{key: key, vpod: listedOr(listed, key, vreplicas, ps), want: want, placements: ps})
		}
		if maxOrd >= min(low, limit) {
			// Only a size from low up is simulated, and the largest
			// the limits allow (overLimit): the sources holding
			// nothing at or above either never have to move.
			holders = append(holders, holderRef{key: key, maxOrd: maxOrd, want: want})
		}
	})
	if listedSeen < len(listed) {
		for key, v := range listed {
			if !base.Knows(key) && v.GetVReplicas() > 0 && v.GetVReplicas() <= vsched.MaxVReplicas {
				// Not seen by the scheduler yet: it holds nothing the
				// state counts.
				demand = append(demand, &simSource{key: key, vpod: v, want: v.GetVReplicas()})
			}
		}
	}
	sort.Slice(demand, func(i, j int) bool { return state.KeyLess(demand[i].key, demand[j].key) })
	m := &simulator{ctx: framework.WithoutReason(ctx), profile: profiles.Place, base: base, current: current, capacity: capacity,
		now: now, demand: demand, holders: holders, listed: listed, extra: extra}
	fr, err := m.fit(fitOptions{max: max(cfg.MaxReplicas, 0), low: low})
	dec.Simulations = m.runs
	if err != nil {
		return hold(dec, fmt.Sprintf("simulating the scheduler profile failed (%v); holding the current size", err))
	}
	zones := len(base.SchedulableNodeZones())
	zoneSpread := profiles.Place.SpreadsOverZones()
	obs := Observation{Now: now, Current: current, Capacity: capacity, Held: held, Pending: fr.need,
		Unplaceable: fr.unplaceable, Fit: fr.replicas, Zones: zones, ZoneSpread: zoneSpread, Config: cfg}
	rec := pol.Recommend(ctx, obs)
	desired := max(rec.Replicas, fr.replicas, cfg.MinReplicas)
	if zoneSpread && zones > 1 && desired > 0 && desired != current {
		// Any change lands on a multiple of the zones, so that every
		// zone offers the same capacity; a size that needs no change is
		// not grown just to round it.
		desired = roundUp(desired, zones)
	}
	desired = min(desired, limit)
	dec.Pending, dec.Unplaced, dec.Unplaceable = fr.need, fr.unplaced, fr.unplaceable
	over, err := m.overLimit(fr, limit)
	dec.Simulations = m.runs
	if err != nil {
		return hold(dec, fmt.Sprintf("simulating the scheduler profile failed (%v); holding the current size", err))
	}
	a.reportOverLimit(ctx, set, over, limit)
	desired, compacting = over.bound(&dec, desired, base.HighestUsedOrdinal(), compacting)
	dec.Desired, dec.Fit = desired, fr.replicas
	dec.Target = current

	var errs []error
	keep := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	persist := false
	// cancelCompaction lifts the compaction drains below the ordinal given:
	// demand came back.
	cancelCompaction := func(below int32) {
		marks := a.drainer.Marks()
		var lifted []int32
		for _, ord := range sortedOrdinals(marks) {
			if marks[ord] != evictor.ReasonCompaction || ord >= below {
				continue
			}
			lifted = append(lifted, ord)
			if write {
				keep(a.drainer.Unmark(ctx, ord))
			}
		}
		if len(lifted) > 0 {
			dec.CompactionCancelled = true
			if write {
				a.event(set, corev1.EventTypeNormal, ReasonCompactionCancelled, "demand returned: drain of %s cancelled", ordinals(a.key.Name, lifted))
			}
		}
	}

	switch {
	case desired > current:
		target := desired
		if r := cfg.MaxScaleUpRate; r > 0 {
			limit := max(current+1, int32(math.Ceil(float64(current)*r)))
			if zoneSpread && zones > 1 {
				// A rate-limited step still lands on a multiple of the
				// zones: from 0 it gives every zone a pod at once, so a
				// zone spread is not held to the one zone bound first.
				limit = roundUp(limit, zones)
			}
			target = min(target, limit)
		}
		dec.Action, dec.Target = ActionScaleUp, target
		why := rec.Reason
		switch {
		case fr.up:
			why = fmt.Sprintf("pending %d vreplica(s)", fr.need)
		case current < cfg.MinReplicas:
			why = fmt.Sprintf("below min replicas %d", cfg.MinReplicas)
		}
		dec.Reason = why
		cancelCompaction(math.MaxInt32)
		if !a.timers.scaleDownSince.IsZero() {
			a.timers.scaleDownSince, persist = time.Time{}, true
		}
		if write {
			ok, rv, err := a.writeScale(ctx, current, target)
			switch {
			case err != nil:
				keep(fmt.Errorf("autoscaler: scaling StatefulSet %s to %d: %w", a.key, target, err))
			case ok:
				dec.Written = true
				a.sched.grown(target, rv)
				a.timers.lastScaleUp, persist = now, true
				a.event(set, corev1.EventTypeNormal, ReasonScaledUp, "scaled from %d to %d replicas: %s", current, target, why)
				a.metrics.change(ctx, "up")
				log.Infow("vsched autoscaler: scaled up", "from", current, "to", target, "reason", why)
			}
		}
	case desired < current:
		if a.timers.scaleDownSince.IsZero() {
			a.timers.scaleDownSince, persist = now, true
		}
		// Demand that came back part of the way lifts the drains below
		// the new target.
		cancelCompaction(desired)
		windowEnds := a.timers.scaleDownSince.Add(cfg.StabilizationWindow)
		cooldownEnds := a.timers.lastScaleUp.Add(cfg.ScaleDownCooldown)
		switch {
		case now.Before(windowEnds):
			dec.Action = ActionHold
			dec.Reason = fmt.Sprintf("%d replica(s) would do since %s; stabilizing until %s", desired, a.timers.scaleDownSince.Format(time.RFC3339), windowEnds.Format(time.RFC3339))
		case !a.timers.lastScaleUp.IsZero() && now.Before(cooldownEnds):
			dec.Action = ActionHold
			dec.Reason = fmt.Sprintf("%d replica(s) would do; scale-up cooldown until %s", desired, cooldownEnds.Format(time.RFC3339))
		default:
			a.scaleDown(ctx, &dec, base, set, desired, compacting, write, keep)
		}
	default:
		dec.Action, dec.Reason = ActionNone, rec.Reason
		if !a.timers.scaleDownSince.IsZero() {
			a.timers.scaleDownSince, persist = time.Time{}, true
		}
		cancelCompaction(math.MaxInt32)
	}

	if over.exceeded {
		dec.Reason = over.reason(limit) + "; " + dec.Reason
		if dec.Action == ActionNone {
			dec.Action = ActionHold
		}
	}
	// Drains for lost nodes and lowered capacity, whatever the size does.
	if write {
		for _, ord := range sortedOrdinals(wants) {
			w := wants[ord]
			// Past the size this cycle set, a pod is going away: marking
			// it would patch a pod being deleted.
			if ord >= min(base.Replicas(), dec.Target) || a.drainer.Reason(ord) == w.reason {
				continue
			}
			keep(a.drainer.Mark(ctx, ord, w.reason))
			switch w.reason {
			case evictor.ReasonUnavailable:
				a.event(set, corev1.EventTypeWarning, ReasonPodDraining, "pod %s: its node has been unavailable since %s, longer than the grace of %v; moving its vreplicas",
					vsched.PodName(a.key.Name, ord), base.NodeUnavailableSince(ord).Format(time.RFC3339), cfg.UnavailablePodGrace)
			case evictor.ReasonOverCapacity:
				a.event(set, corev1.EventTypeNormal, ReasonPodDraining, "pod %s holds %d vreplica(s) over its capacity of %d; moving the excess",
					vsched.PodName(a.key.Name, ord), w.excess, capacity)
			}
		}
		marks := a.drainer.Marks()
		for _, ord := range sortedOrdinals(marks) {
			if _, ok := wants[ord]; !ok && marks[ord] != evictor.ReasonCompaction {
				keep(a.drainer.Unmark(ctx, ord))
			}
		}
		dec.Requeued, dec.Rebalancing = a.requeue(ctx, cfg, profiles.Place, base, listed, wants, keep)
	}
	if persist && write {
		keep(a.persistTimers(ctx))
	}
	dec.Draining = a.drainer.Marks()
	dec.ScaleDownSince, dec.LastScaleUp = a.timers.scaleDownSince, a.timers.lastScaleUp
	if !write && dec.Target != current && dec.Target != a.lastRecommended {
		why := "recommend-only mode"
		if set.Annotations[AnnotationPaused] == "true" {
			why = "autoscaler paused by annotation " + AnnotationPaused
		}
		a.event(set, corev1.EventTypeNormal, ReasonScaleRecommended, "would scale from %d to %d replicas (%s): %s", current, dec.Target, why, dec.Reason)
		log.Infow("vsched autoscaler: recommendation only", "from", current, "to", dec.Target, "why", why, "reason", dec.Reason)
	}
	if !write {
		a.lastRecommended = dec.Target
	}
	a.metrics.record(ctx, dec)
	return dec, errors.Join(errs...)
}

// scaleDown applies a scale-down the window and cooldown allow: drain what
// must move (compaction), and shrink past every pod left without a committed
// or reserved placement.
func (a *Autoscaler) scaleDown(ctx context.Context, dec *Decision, base *state.State, set *appsv1.StatefulSet,
	desired int32, compacting, write bool, keep func(error)) {
	log := a.logger(ctx).With("statefulset", a.key.String())
	current := base.Replicas()
	heldTop := base.HighestUsedOrdinal()
	shrinkTo := min(max(desired, heldTop+1), current)
	dec.Action, dec.Target = ActionScaleDown, shrinkTo
	dec.Reason = "idle capacity"
	if compacting && desired <= heldTop {
		// Drain every pod the target removes at once: what moves goes
		// below the target, never to a pod drained later.
		var marked []int32
		var moving int64
		for ord := desired; ord < current; ord++ {
			moving += int64(base.Used(ord))
			if a.drainer.Reason(ord) != "" || base.Draining(ord) {
				continue
			}
			marked = append(marked, ord)
			if write {
				keep(a.drainer.Mark(ctx, ord, evictor.ReasonCompaction))
			}
		}
		dec.Reason = "compaction"
		if len(marked) > 0 && write {
			a.event(set, corev1.EventTypeNormal, ReasonCompactionStarted, "sources fit on %d pod(s): draining %s to move %d vreplica(s) to lower ordinals",
				desired, ordinals(a.key.Name, marked), moving)
			log.Infow("vsched autoscaler: compaction", "target", desired, "draining", marked, "vreplicas", moving)
		}
		if shrinkTo == current {
			dec.Action = ActionCompact
		}
	} else if shrinkTo == current {
		dec.Action = ActionHold
		dec.Reason = fmt.Sprintf("%d replica(s) would do, but %s holds vreplicas and compaction is off", desired, vsched.PodName(a.key.Name, heldTop))
	}
	if shrinkTo >= current || !write {
		return
	}
	a.shrink(ctx, dec, set, current, shrinkTo, keep)
}

// requeue hands Config.Requeue the sources to move this cycle, within the
// budget: pods on lost nodes first, then pods over capacity, then
// compaction, highest ordinals first within each; then, with what the
// budget leaves, the sources whose placements break a Rebalancer's rule and
// could be repaired now (rebalanceMoves).
func (a *Autoscaler) requeue(ctx context.Context, cfg *config.AutoscalerConfig, place *framework.Profile, base *state.State,
	listed map[types.NamespacedName]vsched.VPod, wants map[int32]drainWant, keep func(error)) (requeued, rebalancing []types.NamespacedName) {
	if !a.drainer.CanRequeue() {
		return nil, nil
	}
	marks := a.drainer.Marks()
	rank := map[string]int{evictor.ReasonUnavailable: 0, evictor.ReasonOverCapacity: 1, evictor.ReasonCompaction: 2}
	targets := make([]evictor.Target, 0, len(marks))
	for ord, reason := range marks {
		if ord >= base.Replicas() || base.Used(ord) <= 0 {
			continue
		}
		t := evictor.Target{Ordinal: ord}
		if reason == evictor.ReasonOverCapacity {
			t.Excess = wants[ord].excess
		}
		targets = append(targets, t)
	}
	var moves []evictor.Move
	if len(targets) > 0 {
		sort.Slice(targets, func(i, j int) bool {
			ri, rj := rank[marks[targets[i].Ordinal]], rank[marks[targets[j].Ordinal]]
			if ri != rj {
				return ri < rj
			}
			return targets[i].Ordinal > targets[j].Ordinal
		})
		on := make(map[int32]bool, len(targets))
		for _, t := range targets {
			on[t.Ordinal] = true
		}
		holdings := base.HoldingsOn(func(ord int32) bool { return on[ord] })
		moves = evictor.PlanMoves(holdings, targets, cfg.MaxMovesPerCycle, cfg.MaxMovesPerSource)
	}
	var used int32
	planned := make(map[types.NamespacedName]bool, len(moves))
	for _, m := range moves {
		used += m.VReplicas
		planned[m.Source] = true
	}
	var rb []evictor.Move
	// A source's placements break the rule only when the cluster changed
	// under them, so the scan (every source, each cycle) runs when the
	// zones, the size or the candidate pods changed, and again while the
	// last scan found something.
	if place != nil && place.Rebalances() {
		if shape := rebalanceTrigger(base); shape != a.rebalanceSeen || a.rebalanceAgain {
			rb = rebalanceMoves(ctx, place, base, listed, planned, max(cfg.MaxMovesPerCycle, 1)-used, max(cfg.MaxMovesPerSource, 1))
			a.rebalanceSeen, a.rebalanceAgain = shape, len(rb) > 0
			a.rebalanceScans++
		}
	}
	if len(rb) > 0 {
		var n int32
		for _, m := range rb {
			n += m.VReplicas
			rebalancing = append(rebalancing, m.Source)
		}
		a.logger(ctx).Infow("vsched autoscaler: requeueing sources whose placements a rebalancing filter finds uneven",
			"statefulset", a.key.String(), "sources", len(rb), "vreplicas", n)
		moves = append(moves, rb...)
	}
	if len(moves) == 0 {
		return nil, rebalancing
	}
	out, err := a.drainer.Requeue(ctx, moves)
	keep(err)
	return out, rebalancing
}

// rebalanceTrigger renders what a source's compliance with a Rebalancer's
// rule can depend on besides its own placements: the zones counted, the
// StatefulSet's size and the candidate pods.
func rebalanceTrigger(st *state.State) string {
	h := fnv.New64a()
	var buf [4]byte
	put := func(v int32) {
		binary.LittleEndian.PutUint32(buf[:], uint32(v))
		h.Write(buf[:])
	}
	for _, list := range [][]int32{st.SchedulableZones(), {-1}, st.GrowthZones(), {-1, st.Replicas(), -1}, st.Candidates()} {
		for _, v := range list {
			put(v)
		}
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// rebalanceMoves finds the sources whose placements break the rule of one
// of the profile's Rebalancers (EvenZoneSpread once a zone is back) and
// that a Schedule call would repair now: Rebalance is tried on a scratch
// decision against base, which it does not change, so a source whose
// repair finds no room is not requeued cycle after cycle. Sources go in key
// order, each counting the moves it would make, until budget is spent; the
// ones past it are not tried.
func rebalanceMoves(ctx context.Context, place *framework.Profile, base *state.State, listed map[types.NamespacedName]vsched.VPod,
	skip map[types.NamespacedName]bool, budget, perSource int32) []evictor.Move {
	if budget <= 0 {
		return nil
	}
	type candidate struct {
		key       types.NamespacedName
		vreplicas int32
		ps        []vsched.Placement
	}
	var cands []candidate
	base.EachSource(func(key types.NamespacedName, vreplicas int32, ps []vsched.Placement, _ []state.Held) {
		if !skip[key] && len(ps) > 0 {
			cands = append(cands, candidate{key: key, vreplicas: vreplicas, ps: ps})
		}
	})
	sort.Slice(cands, func(i, j int) bool { return state.KeyLess(cands[i].key, cands[j].key) })
	ctx = framework.WithoutReason(ctx)
	var out []evictor.Move
	// One decision, Reset per source: its maps are the scan's main cost.
	d := &framework.Decision{}
	for _, c := range cands {
		v := listedOr(listed, c.key, c.vreplicas, c.ps)
		if v.GetVReplicas() != vsched.TotalVReplicas(c.ps) {
			// Growing or shrinking: its next Schedule places through
			// the profile anyway.
			continue
		}
		if err := d.Reset(framework.Place, base, v, c.ps); err != nil {
			continue
		}
		res, err := place.Rebalance(ctx, d, perSource)
		if err != nil || res.Moved == 0 {
			continue
		}
		if res.Moved > budget {
			break
		}
		budget -= res.Moved
		out = append(out, evictor.Move{Source: c.key, VReplicas: res.Moved})
	}
	return out
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
