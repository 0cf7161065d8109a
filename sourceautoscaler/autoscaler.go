package sourceautoscaler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/internal/lib/vlog"
	"github.com/vsched/vsched/sourceautoscaler/decision"
	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// DefaultTick is how often Run looks for sources whose polling interval
// has passed.
const DefaultTick = time.Second

// Options configure New. Providers and Writer are required.
type Options struct {
	// Providers measure the sources; Source.Provider names one of them
	// (their names must differ).
	Providers []signal.Provider
	// Writer writes a source's vreplicas.
	Writer Writer
	// Config is config-source-autoscaler in force
	// (config.SourceAutoscalerStore.Config); nil means its defaults.
	Config config.SourceAutoscalerSource
	// IsLeader says whether this replica leads; nil means always. Nothing
	// is fetched, decided or written while it is false, and the windows
	// start again when it becomes true (a new term has not seen the
	// signal meanwhile).
	IsLeader func() bool
	// OnDecision, when set, is called after each cycle for every source
	// decided, outside the autoscaler's lock, with the write's outcome
	// (nil when nothing was written or the write succeeded): Events,
	// metrics and the pod autoscaler's trigger hang here (embedkit).
	OnDecision func(key types.NamespacedName, d decision.Decision, writeErr error)
	// OnProblem, when set, is told about a source whose annotations are
	// broken (its last good policy stays in force).
	OnProblem func(key types.NamespacedName, err error)
	// Clock defaults to the real clock; Tick to DefaultTick.
	Clock clock.Clock
	Tick  time.Duration
	// Logger receives the logs; it defaults to the context's.
	Logger logr.Logger
	// MeterProvider receives the per-source metrics (metrics.go); it
	// defaults to OpenTelemetry's global provider.
	MeterProvider metric.MeterProvider
}

// Autoscaler decides and writes the vreplicas of the sources it is told
// about. Upsert and Delete may be called from any goroutine; Cycle and Run
// from one.
type Autoscaler struct {
	o         Options
	providers []signal.Provider
	log       *zap.SugaredLogger // nil: the context's

	mu    sync.Mutex // guards slots, index, free
	slots []slot
	index map[types.NamespacedName]int32
	free  []int32

	// The cycle's buffers, reused (only the cycle goroutine touches them).
	rounds  []round
	writes  []write
	decided []decided
	leading bool
}

// New returns an autoscaler; Run it, or call Cycle.
func New(o Options) (*Autoscaler, error) {
	if len(o.Providers) == 0 || o.Writer == nil {
		return nil, errors.New("sourceautoscaler: Providers and Writer are required")
	}
	seen := map[string]bool{}
	for _, p := range o.Providers {
		if seen[p.Name()] {
			return nil, fmt.Errorf("sourceautoscaler: two providers are named %q", p.Name())
		}
		seen[p.Name()] = true
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Tick <= 0 {
		o.Tick = DefaultTick
	}
	if o.IsLeader == nil {
		o.IsLeader = func() bool { return true }
	}
	a := &Autoscaler{o: o, providers: o.Providers, index: map[types.NamespacedName]int32{}, log: vlog.Explicit(o.Logger)}
	a.rounds = make([]round, len(o.Providers))
	if err := a.registerMetrics(o.MeterProvider); err != nil {
		return nil, err
	}
	return a, nil
}

// Run runs a cycle every Tick until ctx is done.
func (a *Autoscaler) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.o.Clock.After(a.o.Tick):
			a.Cycle(ctx)
		}
	}
}

func (a *Autoscaler) config() *config.SourceAutoscalerConfig {
	if a.o.Config != nil {
		if c := a.o.Config(); c != nil {
			return c
		}
	}
	return defaultConfig
}

var defaultConfig = config.DefaultSourceAutoscalerConfig()

// Explanation is a source's last decision with the policy that made it.
type Explanation struct {
	At       time.Time
	Decision decision.Decision
	Policy   decision.Policy
	// Problem is the source's annotation problem, if any.
	Problem error
}

// Explain returns the source's last decision; false when the source is
// unknown or not decided yet.
func (a *Autoscaler) Explain(key types.NamespacedName) (Explanation, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i, ok := a.index[key]
	if !ok || a.slots[i].lastAt == 0 {
		return Explanation{}, false
	}
	s := &a.slots[i]
	return Explanation{At: time.Unix(0, s.lastAt), Decision: s.last, Policy: s.policy, Problem: s.policyErr}, true
}
