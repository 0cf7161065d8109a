package statefulset

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"knative.dev/pkg/reconciler"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/lib/vlog"
	"github.com/vsched/vsched/state"
)

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
	// guard keeps hot pods' sheds off pods measured near their hot-pod
	// limits (SetHotGuard).
	guard hotGuard

	// seen is what the informer handlers last reported about the nodes
	// and the StatefulSet's size (see seen.go).
	seen seenViews
	// presence is whether the StatefulSet exists (see presence.go).
	presence presence
	// outside is the wait for a scale-down from outside to be sized
	// back (see outside.go).
	outside outsideScaleDown
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
// internal/lib/vlog).
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
	s.forgetEstimate(key)
	if known {
		s.requeuePending()
	}
}

type explainKey struct{}

// WithExplanation asks Schedule to record its decision in ex.
func WithExplanation(ctx context.Context, ex *framework.Explanation) context.Context {
	return context.WithValue(ctx, explainKey{}, ex)
}
