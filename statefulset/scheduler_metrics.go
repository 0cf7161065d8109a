package statefulset

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
)

// MeterName names the OpenTelemetry meter of the scheduler's instruments,
// and of the autoscaler's (autoscaler.MeterName has the same value).
const MeterName = "github.com/vsched/vsched/statefulset"

func otelMeterProvider() metric.MeterProvider { return otel.GetMeterProvider() }

// The scheduler's instruments, in the meter named MeterName, each carrying
// the StatefulSet's k8s.namespace.name and k8s.statefulset.name.
const (
	// MetricScheduleDuration is a histogram of Schedule calls' latency in
	// seconds, with the outcome attribute.
	MetricScheduleDuration = "vsched.scheduler.schedule.duration"
	// MetricDecisions counts Schedule calls by outcome.
	MetricDecisions = "vsched.scheduler.decisions"
	// MetricSchedulerPending is the vreplicas the StatefulSet's sources
	// wait for, as their last decisions left them.
	MetricSchedulerPending = "vsched.scheduler.pending_vreplicas"
	// MetricMovedVReplicas counts vreplicas moved from one pod to another,
	// with the reason attribute.
	MetricMovedVReplicas = "vsched.scheduler.moved_vreplicas"
	// MetricUnavailableVReplicas is the vreplicas held on pods that run
	// nothing now (missing, unbound, or on a lost node): placed, so not
	// pending, but not running either.
	MetricUnavailableVReplicas = "vsched.scheduler.unavailable_vreplicas"
	// MetricReservations is the decisions not yet seen written.
	MetricReservations = "vsched.scheduler.reservations"
	// MetricOldestReservationAge is the age in seconds of the oldest of
	// them (0 when there is none).
	MetricOldestReservationAge = "vsched.scheduler.reservation.oldest_age"
	// MetricStatefulSetReady is 1 while the StatefulSet is present, 0
	// while it is missing (not found, deleted, or created again below
	// the pods the sources hold): no decision is made then.
	MetricStatefulSetReady = "vsched.scheduler.statefulset.ready"
)

// Values of the outcome attribute.
const (
	OutcomePlaced    = "placed"     // every vreplica placed
	OutcomePartial   = "partial"    // some left pending
	OutcomeNotReady  = "not_ready"  // vsched.ErrNotReady
	OutcomeNotLeader = "not_leader" // vsched.ErrNotLeader
	OutcomeStale     = "stale"      // vsched.ErrStale
	OutcomeFailed    = "failed"     // any other error
)

// Values of the reason attribute of MetricMovedVReplicas.
const (
	MoveDrain     = "drain"     // off a pod drained for compaction (or by hand)
	MoveLostNode  = "lost_node" // off a pod whose node stayed unavailable
	MoveRebalance = "rebalance" // to restore a Rebalancer's rule
	MoveCapacity  = "capacity"  // off a pod over capacity, or beyond the StatefulSet's replicas
)

// Moves are the vreplicas one Schedule call moved, by reason (Move*).
type Moves map[string]int32

type movesKey struct{}

// WithMoves asks Schedule to add the vreplicas it moves, by reason, to m:
// what a controller reports on the source (embedkit.Decide does).
func WithMoves(ctx context.Context, m Moves) context.Context {
	return context.WithValue(ctx, movesKey{}, m)
}

// report adds the counts to the Moves in ctx, if any.
func (m *moveCounts) report(ctx context.Context) {
	out, ok := ctx.Value(movesKey{}).(Moves)
	if !ok {
		return
	}
	for i, n := range m {
		if n > 0 {
			out[moveReasons[i]] += int32(n)
		}
	}
}

// moveReasons are the reasons of moves, indexed as moveCounts.
var moveReasons = [...]string{MoveDrain, MoveLostNode, MoveRebalance, MoveCapacity}

// moveCounts are one decision's moved vreplicas, by moveReasons' index.
type moveCounts [len(moveReasons)]int64

func (m *moveCounts) add(reason string, n int64) {
	for i, r := range moveReasons {
		if r == reason {
			m[i] += n
		}
	}
}

var outcomes = [...]string{OutcomePlaced, OutcomePartial, OutcomeNotReady, OutcomeNotLeader, OutcomeStale, OutcomeFailed}

type schedulerMetrics struct {
	duration metric.Float64Histogram
	outcomes metric.Int64Counter
	moved    metric.Int64Counter
	attrs    attribute.Set
	reg      metric.Registration
	// byOutcome and byReason are the attribute sets of each value, built
	// once, as the option slices Record and Add take: a Schedule call
	// records without allocating them (a variadic option would put a new
	// slice on the heap for every call).
	byOutcome map[string]outcomeOptions
	byReason  [len(moveReasons)][]metric.AddOption
}

// outcomeOptions is one outcome's attribute set for each instrument kind.
type outcomeOptions struct {
	record []metric.RecordOption
	add    []metric.AddOption
}

func (m *schedulerMetrics) with(key, value string) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(append(m.attrs.ToSlice(), attribute.String(key, value))...))
}

func newSchedulerMetrics(s *Scheduler, mp metric.MeterProvider) (*schedulerMetrics, error) {
	meter := mp.Meter(MeterName)
	m := &schedulerMetrics{attrs: attribute.NewSet(
		attribute.String("k8s.namespace.name", s.key.Namespace),
		attribute.String("k8s.statefulset.name", s.key.Name),
	)}
	m.byOutcome = map[string]outcomeOptions{}
	for _, o := range outcomes {
		opt := m.with("outcome", o)
		m.byOutcome[o] = outcomeOptions{record: []metric.RecordOption{opt}, add: []metric.AddOption{opt}}
	}
	for i, r := range moveReasons {
		m.byReason[i] = []metric.AddOption{m.with("reason", r)}
	}
	var err error
	if m.duration, err = meter.Float64Histogram(MetricScheduleDuration, metric.WithUnit("s"),
		metric.WithDescription("Latency of Schedule calls.")); err != nil {
		return nil, err
	}
	if m.outcomes, err = meter.Int64Counter(MetricDecisions, metric.WithUnit("{call}"),
		metric.WithDescription("Schedule calls by outcome.")); err != nil {
		return nil, err
	}
	if m.moved, err = meter.Int64Counter(MetricMovedVReplicas, metric.WithUnit("{vreplica}"),
		metric.WithDescription("Vreplicas moved from one pod to another, by reason.")); err != nil {
		return nil, err
	}
	pending, err1 := meter.Int64ObservableGauge(MetricSchedulerPending, metric.WithUnit("{vreplica}"),
		metric.WithDescription("Vreplicas the sources wait for."))
	reservations, err2 := meter.Int64ObservableGauge(MetricReservations, metric.WithUnit("{decision}"),
		metric.WithDescription("Decisions not yet seen in their source's status."))
	age, err3 := meter.Float64ObservableGauge(MetricOldestReservationAge, metric.WithUnit("s"),
		metric.WithDescription("Age of the oldest decision not yet seen in its source's status."))
	unavailable, err4 := meter.Int64ObservableGauge(MetricUnavailableVReplicas, metric.WithUnit("{vreplica}"),
		metric.WithDescription("Vreplicas placed on pods that run nothing now (missing, unbound, or on a lost node)."))
	ready, err5 := meter.Int64ObservableGauge(MetricStatefulSetReady,
		metric.WithDescription("1 while the StatefulSet is present, 0 while it is missing."))
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return nil, err
	}
	m.reg, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		g := s.gauges()
		attrs := metric.WithAttributeSet(m.attrs)
		o.ObserveInt64(pending, g.pending, attrs)
		o.ObserveInt64(unavailable, g.unavailable, attrs)
		o.ObserveInt64(reservations, g.reservations, attrs)
		o.ObserveFloat64(age, g.oldest.Seconds(), attrs)
		present := int64(1)
		if s.StatefulSetMissing() != "" {
			present = 0
		}
		o.ObserveInt64(ready, present, attrs)
		return nil
	}, pending, unavailable, reservations, age, ready)
	return m, err
}

// gaugeValues are the scheduler's gauges at one collection.
type gaugeValues struct {
	pending, unavailable, reservations int64
	oldest                             time.Duration
}

// gauges reads the pending and unavailable vreplicas, the reservations and
// the oldest one's age under the state lock, at collection time only.
func (s *Scheduler) gauges() gaugeValues {
	now := s.cfg.Clock.Now()
	s.st.Lock()
	defer s.st.Unlock()
	g := gaugeValues{pending: s.st.PendingTotal(), unavailable: s.st.UnavailableVReplicas()}
	g.reservations, g.oldest = s.st.ReservationStats(now)
	return g
}

// record records one Schedule call.
func (m *schedulerMetrics) record(ctx context.Context, took time.Duration, err error, moves *moveCounts) {
	outcome := m.byOutcome[outcomeOf(err)]
	m.duration.Record(ctx, took.Seconds(), outcome.record...)
	m.outcomes.Add(ctx, 1, outcome.add...)
	for i, n := range moves {
		if n > 0 {
			m.moved.Add(ctx, n, m.byReason[i]...)
		}
	}
}

func outcomeOf(err error) string {
	switch {
	case err == nil:
		return OutcomePlaced
	case errors.Is(err, vsched.ErrNotEnoughReplicas):
		return OutcomePartial
	case errors.Is(err, vsched.ErrNotReady):
		return OutcomeNotReady
	case errors.Is(err, vsched.ErrNotLeader):
		return OutcomeNotLeader
	case errors.Is(err, vsched.ErrStale):
		return OutcomeStale
	}
	return OutcomeFailed
}

// drainReasons remembers each draining pod's annotation value, which the
// state does not keep, to tell why vreplicas moved off it.
type drainReasons struct {
	mu sync.Mutex
	by map[string]string
	// marked are the reasons the evictor gave as it marked the pods
	// (MarkDrainingFor), before their annotations show.
	marked map[string]string
}

func (d *drainReasons) observe(pod *corev1.Pod, annotation string) {
	v, ok := pod.Annotations[annotation]
	d.mu.Lock()
	defer d.mu.Unlock()
	if !ok {
		delete(d.by, pod.Name)
		return
	}
	if d.by == nil {
		d.by = map[string]string{}
	}
	d.by[pod.Name] = v
}

// moveReason is the reason of a move off a draining pod.
func (d *drainReasons) moveReason(pod string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.by[pod] {
	case evictor.ReasonUnavailable:
		return MoveLostNode
	case evictor.ReasonOverCapacity:
		return MoveCapacity
	}
	return MoveDrain
}

// countMoves attributes the vreplicas a decision took off draining pods and
// pods beyond the StatefulSet's replicas to their reasons, up to the
// vreplicas it added elsewhere: what it took off without adding is a
// source shrinking, not a move. It runs under the state lock.
func (s *Scheduler) countMoves(base, final []vsched.Placement, moves *moveCounts) {
	var added int64
	for _, p := range final {
		before := int32(0)
		if q := vsched.PlacementForPod(base, p.PodName); q != nil {
			before = q.VReplicas
		}
		added += int64(max(p.VReplicas-before, 0))
	}
	replicas := s.st.Replicas()
	for _, p := range base {
		if added == 0 {
			return
		}
		taken := p.VReplicas
		if q := vsched.PlacementForPod(final, p.PodName); q != nil {
			taken -= q.VReplicas
		}
		ord, _ := s.st.OrdinalOf(p.PodName)
		var reason string
		switch {
		case taken <= 0:
			continue
		case ord >= replicas:
			reason = MoveCapacity
		case s.st.Draining(ord):
			reason = s.drains.moveReason(p.PodName)
		default:
			continue
		}
		n := min(int64(taken), added)
		moves.add(reason, n)
		added -= n
	}
}
