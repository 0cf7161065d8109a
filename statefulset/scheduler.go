package statefulset

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/vlog"
	"github.com/vsched/vsched/state"
)

const (
	// DefaultResyncPeriod is how often the state is reconciled with the
	// sources' lister when Config.ResyncPeriod is 0.
	DefaultResyncPeriod = 5 * time.Minute
	// DefaultReservationTTL bounds how long a decision counts against
	// capacity without being seen in the source's status.
	DefaultReservationTTL = 2 * time.Minute
)

// ErrNotReady is returned (wrapped) while the scheduler cannot decide safely:
// informers not synced, or the sources' committed placements not loaded yet.
// It is retryable.
var ErrNotReady = errors.New("scheduler state is not loaded yet")

// ErrStale is returned (wrapped) by Schedule for a source object older than
// one the scheduler has already seen, or for a source it was told was
// deleted: a decision made from it could undo a newer one. It is retryable:
// the controller's next read of the source is newer.
var ErrStale = errors.New("source version is older than one already seen")

// ProfileSource returns the scheduler and descheduler profiles for the next
// decision. It is called once per Schedule call, so live-reloaded
// configuration takes effect at once.
type ProfileSource func() config.Profiles

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
	// by the autoscaler (autoscaler.Options.CostEstimates).
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
	// Schedule answers ErrNotReady and the autoscaler holds.
	ListerSynced func() bool
	// Informers provide the pods, nodes and StatefulSet: the scheduler
	// registers its handlers; the caller starts them. Required (all three
	// or none, for tests that feed the state directly);
	// InformersFromFactory builds them from a SharedInformerFactory.
	Informers Informers
	// Profiles supplies the profiles. Required (see ProfilesFrom).
	Profiles ProfileSource
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

// Scheduler places sources' vreplicas on one StatefulSet's pods.
type Scheduler struct {
	cfg      Config
	key      types.NamespacedName
	st       *state.State
	synced   []cache.InformerSynced
	handlers []handlerReg

	leader atomic.Bool
	// loaded is true once the committed placements of every source have
	// been read since this replica last became leader.
	loaded atomic.Bool
	// term is the term's first read while it is in flight or waits for
	// the load (readTermStart); termMu guards it, and is taken after the
	// state's lock when both are.
	termMu sync.Mutex
	term   *termRead

	// pendingHook is called after a Schedule call that left vreplicas
	// pending (SetPendingHook): the autoscaler's Trigger.
	pendingHook atomic.Pointer[func()]
	// readSet reads the StatefulSet from the API server for a term's first
	// load; the autoscaler, which has a client, provides it.
	readSet atomic.Pointer[func(context.Context) (*appsv1.StatefulSet, error)]

	bucketsMu sync.Mutex
	buckets   map[string]bool

	// log is Config.Logger's, nil when none was given (see logger).
	log     *zap.SugaredLogger
	metrics *schedulerMetrics
	drains  drainReasons
	// quotas bound a source's moves off draining pods (SetMoveQuota).
	quotas moveQuotas

	// seen is what the informer handlers last reported about the nodes
	// and the StatefulSet's size (see seen.go).
	seen seenViews
	// presence is whether the StatefulSet exists (see presence.go).
	presence presence
}

var (
	_ vsched.Scheduler       = &Scheduler{}
	_ reconciler.LeaderAware = &Scheduler{}
)

// New builds a scheduler and registers its informer handlers.
func New(ctx context.Context, cfg Config) (*Scheduler, error) {
	switch {
	case cfg.Namespace == "" || cfg.Name == "":
		return nil, fmt.Errorf("statefulset scheduler: Namespace and Name of the StatefulSet are required")
	case cfg.Capacity < 1:
		return nil, fmt.Errorf("statefulset scheduler: Capacity must be at least 1, got %d", cfg.Capacity)
	case cfg.Capacity > vsched.MaxCapacity:
		return nil, fmt.Errorf("statefulset scheduler: Capacity must be at most %d (vsched.MaxCapacity), got %d", vsched.MaxCapacity, cfg.Capacity)
	case cfg.Lister == nil:
		return nil, fmt.Errorf("statefulset scheduler: Lister is required")
	case cfg.ListerSynced == nil:
		return nil, fmt.Errorf("statefulset scheduler: ListerSynced is required (the sources' informer HasSynced)")
	case cfg.Profiles == nil:
		return nil, fmt.Errorf("statefulset scheduler: Profiles is required")
	case !cfg.Informers.empty() && (cfg.Informers.Pods == nil || cfg.Informers.Nodes == nil || cfg.Informers.StatefulSets == nil):
		return nil, fmt.Errorf("statefulset scheduler: Informers needs Pods, Nodes and StatefulSets (or none)")
	case cfg.ResyncPeriod < 0:
		return nil, fmt.Errorf("statefulset scheduler: ResyncPeriod must not be negative, got %v", cfg.ResyncPeriod)
	case cfg.ReservationTTL < 0:
		return nil, fmt.Errorf("statefulset scheduler: ReservationTTL must not be negative, got %v", cfg.ReservationTTL)
	}
	if cfg.ResyncPeriod == 0 {
		cfg.ResyncPeriod = DefaultResyncPeriod
	}
	if cfg.ReservationTTL == 0 {
		cfg.ReservationTTL = DefaultReservationTTL
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	st, err := state.New(state.Options{
		StatefulSetName:    cfg.Name,
		Capacity:           cfg.Capacity,
		DrainingAnnotation: cfg.DrainingAnnotation,
		ZoneLabel:          cfg.ZoneLabel,
		PodResources:       cfg.PodResources,
		CostEstimates:      cfg.CostEstimates,
	})
	if err != nil {
		return nil, err
	}
	s := &Scheduler{cfg: cfg, key: types.NamespacedName{Namespace: cfg.Namespace, Name: cfg.Name}, st: st, buckets: map[string]bool{}}
	s.leader.Store(cfg.AlwaysLeader)
	s.log = vlog.Explicit(cfg.Logger)
	mp := cfg.MeterProvider
	if mp == nil {
		mp = otelMeterProvider()
	}
	if s.metrics, err = newSchedulerMetrics(s, mp); err != nil {
		return nil, err
	}
	s.seen.log = s.logger(ctx).With("statefulset", s.key.String())
	if !cfg.Informers.empty() {
		s.presence.watched = true
		if err := s.watch(cfg.Informers); err != nil {
			return nil, err
		}
	}
	s.logger(ctx).Infow("vsched scheduler created", "statefulset", s.key.String(), "capacity", cfg.Capacity, "alwaysLeader", cfg.AlwaysLeader)
	return s, nil
}

// logger is Config.Logger when given, else the context's (see package
// internal/vlog).
func (s *Scheduler) logger(ctx context.Context) *zap.SugaredLogger { return vlog.Pick(ctx, s.log) }

// Snapshot returns a read-only copy of the scheduler's state, for tests,
// tools and diagnostics: it copies every source, so it is not for every
// reconcile. The live state is the scheduler's alone; the drain protocol
// changes it through MarkDraining and UnmarkDraining, the autoscaler
// simulates on CloneLoaded.
func (s *Scheduler) Snapshot() state.Reader {
	s.st.Lock()
	defer s.st.Unlock()
	return s.st.Snapshot()
}

// StatefulSet is the StatefulSet's key.
func (s *Scheduler) StatefulSet() types.NamespacedName { return s.key }

func (s *Scheduler) watch(inf Informers) error {
	handlers := []struct {
		informer Informer
		funcs    cache.ResourceEventHandlerFuncs
	}{
		{inf.Pods, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { s.podChanged(obj) },
			UpdateFunc: func(_, obj any) { s.podChanged(obj) },
			DeleteFunc: s.podDeleted,
		}},
		{inf.Nodes, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { s.nodeChanged(obj) },
			UpdateFunc: func(_, obj any) { s.nodeChanged(obj) },
			DeleteFunc: s.nodeDeleted,
		}},
		{inf.StatefulSets, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { s.setChanged(obj) },
			UpdateFunc: func(_, obj any) { s.setChanged(obj) },
			DeleteFunc: func(obj any) { s.setDeleted(obj) },
		}},
	}
	for _, h := range handlers {
		reg, err := h.informer.AddEventHandler(h.funcs)
		if err != nil {
			s.Close()
			return err
		}
		// The registration's HasSynced, not the informer's: it holds only
		// once this handler has seen every object of the initial list, so
		// no decision is made on a partly replayed state.
		s.synced = append(s.synced, reg.HasSynced)
		s.handlers = append(s.handlers, handlerReg{h.informer, reg})
	}
	return nil
}

type handlerReg struct {
	informer Informer
	reg      cache.ResourceEventHandlerRegistration
}

// Close removes the scheduler's informer handlers, for a controller that
// replaces a scheduler while keeping its informers: without it the old
// scheduler would keep receiving events, and stay in memory, for as long as
// the informers live.
func (s *Scheduler) Close() {
	if s.metrics != nil && s.metrics.reg != nil {
		_ = s.metrics.reg.Unregister()
	}
	for _, h := range s.handlers {
		_ = h.informer.RemoveEventHandler(h.reg)
	}
	s.handlers = nil
}

func tombstone(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

func (s *Scheduler) podChanged(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Namespace != s.cfg.Namespace {
		return
	}
	s.drains.observe(pod, s.st.Options().DrainingAnnotation)
	s.st.Lock()
	grew := s.st.UpsertPodAt(pod, s.cfg.Clock.Now())
	s.st.Unlock()
	if grew {
		s.requeuePending()
	}
}

func (s *Scheduler) podDeleted(obj any) {
	pod, ok := tombstone(obj).(*corev1.Pod)
	if !ok || pod.Namespace != s.cfg.Namespace {
		return
	}
	s.st.Lock()
	s.st.DeletePod(pod.Name)
	s.st.Unlock()
}

func (s *Scheduler) nodeChanged(obj any) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	s.st.Lock()
	grew := s.st.UpsertNode(node, s.cfg.Clock.Now())
	s.st.Unlock()
	s.seen.node(node)
	if grew {
		s.requeuePending()
	}
}

func (s *Scheduler) nodeDeleted(obj any) {
	node, ok := tombstone(obj).(*corev1.Node)
	if !ok {
		return
	}
	s.st.Lock()
	s.st.DeleteNode(node.Name)
	s.st.Unlock()
	s.seen.nodeGone(node.Name)
}

func (s *Scheduler) setChanged(obj any) {
	if set, ok := obj.(*appsv1.StatefulSet); ok {
		s.ObserveStatefulSet(set)
	}
}

// ObserveStatefulSet takes the StatefulSet as its informer's add or update
// event would deliver it; objects of other StatefulSets are ignored. For
// controllers that forward events, and for tests replaying a late one: an
// event older than one already seen changes nothing.
func (s *Scheduler) ObserveStatefulSet(set *appsv1.StatefulSet) {
	if set.Namespace != s.cfg.Namespace || set.Name != s.cfg.Name {
		return
	}
	s.st.Lock()
	take, back := s.presence.arrive(set, s.st.HighestUsedOrdinal()+1, s.loaded.Load(), s.cfg.Clock.Now())
	var grew bool
	var above []types.NamespacedName
	if take {
		grew, above = s.observeSize(set)
	}
	observed := s.st.ObservedReplicas()
	s.st.Unlock()
	if back {
		restore, _ := s.presence.restoreSize()
		s.seen.logger().Infow(LogStatefulSetBack, "replicas", specReplicas(set), "restoreTo", restore)
	}
	s.seen.replicas(observed)
	if grew {
		s.requeuePending()
	}
	s.requeueSources(above)
}

// setDeleted takes the StatefulSet's delete as its absence, not as a size
// of 0: every placement stays where it is, and Schedule answers
// ErrStatefulSetMissing until it is back (presence.go).
func (s *Scheduler) setDeleted(obj any) {
	set, ok := tombstone(obj).(*appsv1.StatefulSet)
	if !ok || set.Namespace != s.cfg.Namespace || set.Name != s.cfg.Name {
		return
	}
	s.presence.gone(s.cfg.Clock.Now())
	s.seen.logger().Infow(LogStatefulSetDeleted)
}

// requeuePending asks the controller to schedule again every source with
// pending vreplicas. It runs on every write that frees room, so it reads the
// state's index of pending sources rather than walking every source.
func (s *Scheduler) requeuePending() {
	if s.cfg.Requeue == nil || !s.leader.Load() {
		return
	}
	s.st.Lock()
	keys := s.st.PendingKeys()
	s.st.Unlock()
	for _, k := range keys {
		s.cfg.Requeue(k)
	}
}

// Promote implements reconciler.LeaderAware. The scheduler leads while it
// holds any bucket that owns the StatefulSet's key; on becoming leader it
// reloads every source's committed placements before its first decision.
//
// The leader flag changes under bucketsMu, together with the bucket set, so
// a Demote racing a Promote of another bucket cannot clear the flag after
// the Promote set it.
func (s *Scheduler) Promote(b reconciler.Bucket, _ func(reconciler.Bucket, types.NamespacedName)) error {
	if !b.Has(s.key) {
		return nil
	}
	s.bucketsMu.Lock()
	defer s.bucketsMu.Unlock()
	s.buckets[b.Name()] = true
	if !s.leader.Swap(true) {
		s.loaded.Store(false)
		s.endTermRead(nil) // a read from an earlier term is not this one's
	}
	return nil
}

// Demote implements reconciler.LeaderAware. It goes by the buckets this
// scheduler was promoted for, not by asking the bucket again: ownership can
// move between buckets (hash.BucketSet.Update), and a bucket that owned the
// StatefulSet when promoted must still release it when demoted.
func (s *Scheduler) Demote(b reconciler.Bucket) {
	s.bucketsMu.Lock()
	defer s.bucketsMu.Unlock()
	if !s.buckets[b.Name()] {
		return
	}
	delete(s.buckets, b.Name())
	if len(s.buckets) == 0 && !s.cfg.AlwaysLeader {
		s.leader.Store(false)
		s.loaded.Store(false)
		s.endTermRead(nil)
		// The term's unwritten decisions end with it: the next leader
		// may give their room away, and this replica reloads from the
		// sources if it leads again.
		s.st.Lock()
		s.st.DropReservations()
		s.st.Unlock()
	}
}

// drainMoveLimit is Config.DrainMoveLimit's bound, 0 for none.
func (s *Scheduler) drainMoveLimit() int32 {
	if s.cfg.DrainMoveLimit == nil {
		return 0
	}
	return max(s.cfg.DrainMoveLimit(), 0)
}

// IsLeader reports whether this replica currently schedules.
func (s *Scheduler) IsLeader() bool { return s.leader.Load() }

// HasSynced reports whether the scheduler's informer handlers have seen the
// initial list of pods, nodes and the StatefulSet. Until then Schedule
// returns an error wrapping ErrNotReady.
func (s *Scheduler) HasSynced() bool { return s.hasSynced() }

func (s *Scheduler) hasSynced() bool {
	for _, f := range s.synced {
		if !f() {
			return false
		}
	}
	return true
}

// NotReady says which view is not complete yet, "" when every one is: the
// pods, nodes and StatefulSet through the scheduler's handlers, and the
// sources through ListerSynced.
func (s *Scheduler) NotReady() string {
	switch {
	case !s.hasSynced():
		return "informers have not synced"
	case s.StatefulSetMissing() != "":
		return s.StatefulSetMissing()
	case !s.cfg.ListerSynced():
		return "the sources' lister has not synced"
	}
	return ""
}

// Resync reconciles the state with the lister: it picks up status writes
// missed, forgets deleted sources, and expires old reservations. A lister
// error changes nothing. It lists from Config.FreshLister, when set, where
// Lister could mislead it: as a term's first load (before the term's first
// Schedule), and when some reservation has outlived ReservationTTL.
func (s *Scheduler) Resync(ctx context.Context) error {
	if !s.cfg.ListerSynced() {
		// An unsynced lister lists nothing: taken for the truth it would
		// forget every source.
		return fmt.Errorf("%w: the sources' lister has not synced", ErrNotReady)
	}
	var ts *termStart
	if s.hasSynced() {
		// A resync before the term's first Schedule is the term's first
		// load, and reads what Schedule's would (readTermStart): from
		// its informers a new leader would miss the statuses and the
		// size the previous one wrote last.
		var err error
		if ts, err = s.readTermStart(ctx); err != nil {
			return err
		}
	}
	now := s.cfg.Clock.Now()
	vpods, mark, fresh, err := s.resyncList(ts, now)
	if err != nil {
		if ts != nil {
			s.endTermRead(nil) // unused: the next call reads afresh
		}
		s.logger(ctx).Warnw("vsched resync: listing sources failed; state kept as it is", "statefulset", s.key.String(), "error", err)
		return err
	}
	s.st.Lock()
	var res state.ResyncResult
	switch {
	case !s.loaded.Load() && ts != nil:
		// The term's first load resyncs from this very list; ts is the
		// term's shared read, not to change.
		own := *ts
		own.vpods, own.mark, own.listed = vpods, mark, true
		if res, err = s.loadTerm(ctx, &own); err != nil {
			s.st.Unlock()
			return err
		}
	case fresh:
		if !s.loaded.Load() {
			s.st.DropReservations() // as below
		}
		res = s.st.ResyncFresh(vpods, mark, now, s.cfg.ReservationTTL)
	case !s.loaded.Load():
		// Informers not synced yet: the sources are loaded, but the
		// term's first load (ensureLoaded) is still to come.
		s.st.DropReservations()
		fallthrough
	default:
		res = s.st.Resync(vpods, mark, now, s.cfg.ReservationTTL)
	}
	expired := s.st.ExpireReservations(now, s.cfg.ReservationTTL)
	s.st.Unlock()
	if len(res.Unconfirmed) > 0 && s.cfg.FreshLister != nil {
		res = s.confirmUnlisted(ctx, res, now)
	}
	log := s.logger(ctx)
	for _, k := range res.Overridden {
		log.Infow("vsched resync: source's status differs from the reservation; the status wins", "source", k.String())
	}
	if len(res.Forgotten)+len(expired) > 0 {
		log.Infow("vsched resync", "statefulset", s.key.String(), "forgotten", len(res.Forgotten), "expiredReservations", len(expired))
	}
	if len(res.Forgotten)+len(expired)+len(res.Overridden)+res.Committed > 0 {
		s.requeuePending()
	}
	return nil
}

// resyncList lists the sources for a resync, outside the state lock, with
// the state's Seq when it did: the term's fresh list when ts has one, else
// Lister, or FreshLister when a reservation is due to expire at now.
func (s *Scheduler) resyncList(ts *termStart, now time.Time) (vpods []vsched.VPod, mark uint64, fresh bool, err error) {
	if ts != nil && ts.listed {
		return ts.vpods, ts.mark, true, nil
	}
	// What is observed after this point is newer than the list: the
	// resync must not forget it (State.Resync).
	s.st.Lock()
	mark = s.st.Seq()
	lister := s.cfg.Lister
	if s.cfg.FreshLister != nil && s.st.ReservationsExpireBy(now, s.cfg.ReservationTTL) {
		// Expiring a reservation frees its room: only a list at least
		// as new as its status write, if there was one, may say there
		// was none. A lagging Lister may not show that write yet.
		lister, fresh = s.cfg.FreshLister, true
	}
	s.st.Unlock()
	vpods, err = lister()
	return vpods, mark, fresh, err
}

// Run resyncs every ResyncPeriod until ctx is done.
func (s *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(s.cfg.ResyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if s.leader.Load() {
				_ = s.Resync(ctx)
			}
		}
	}
}

// Observe tells the scheduler what a source's object shows now, for
// controllers that forward their source informer's events. It is optional:
// Schedule and Resync observe too.
func (s *Scheduler) Observe(vpod vsched.VPod) {
	s.st.Lock()
	before := s.st.TotalUsed()
	out := s.st.Observe(vpod, s.cfg.Clock.Now())
	after := s.st.TotalUsed()
	s.st.Unlock()
	if freesRoom(out, before, after) {
		s.requeuePending()
	}
}

// freesRoom reports whether observing a source, which changed the state's
// TotalUsed from usedBefore to usedAfter, may have freed capacity by
// resolving its reservation: until then each pod counts the larger of the
// committed and the reserved vreplicas (see state.State.Observe). A commit
// only lowers what each pod counts (to the reserved count), so it freed room
// exactly when the total fell; a written decision that took nothing off any
// pod (a source growing) frees nothing, and requeueing every pending source
// on each such write would only repeat their decisions. An override may
// have moved the source anywhere.
func freesRoom(out state.Outcome, usedBefore, usedAfter int64) bool {
	switch out {
	case state.Committed:
		return usedAfter < usedBefore
	case state.Overridden:
		return true
	}
	return false
}

// Forget tells the scheduler a source was deleted, freeing its capacity at
// once.
func (s *Scheduler) Forget(key types.NamespacedName) {
	s.st.Lock()
	known := s.st.Forget(key, s.cfg.Clock.Now())
	s.st.Unlock()
	if known {
		s.requeuePending()
	}
}

type explainKey struct{}

// WithExplanation asks Schedule to record its decision in ex.
func WithExplanation(ctx context.Context, ex *framework.Explanation) context.Context {
	return context.WithValue(ctx, explainKey{}, ex)
}
