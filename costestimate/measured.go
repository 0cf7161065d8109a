package costestimate

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// DefaultMaxAge is how long Measured keeps its estimates in force after
// the last round that measured something, when MeasuredOptions.MaxAge is 0.
const DefaultMaxAge = 10 * time.Minute

// MeasuredOptions tune a Measured.
type MeasuredOptions struct {
	// Options tune the estimator.
	Options
	// MaxAge is how long the estimates stay in force after the last round
	// that measured a pod: past it, EstimatedCost returns nil, and the
	// sources fall back to their declared costs (or their slots alone).
	// 0 means DefaultMaxAge.
	MaxAge time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Measured is an Estimator shared between what feeds it (the autoscaler,
// once per cycle) and the scheduler, which reads a source's estimate when
// it observes the source (vsched.CostEstimates). Each round's estimates
// are published whole, so a reader never sees half a round. It is safe for
// concurrent use.
type Measured struct {
	opts MeasuredOptions

	// feed serialises rounds; the estimator is not safe for concurrent
	// use.
	feed sync.Mutex
	est  *Estimator

	mu    sync.RWMutex
	costs map[types.NamespacedName]corev1.ResourceList
	// at is when the last round with a measured pod ran; zero: never.
	at time.Time
}

var _ vsched.CostEstimates = (*Measured)(nil)

// NewMeasured returns a Measured with no estimate.
func NewMeasured(opts MeasuredOptions) *Measured {
	if opts.MaxAge <= 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Measured{opts: opts, est: New(opts.Options)}
}

// Observe runs one round (Estimator.Observe) on the pods measured at now
// and publishes every source's estimate. A round without a pod measured
// (the usage unknown) changes nothing: the last estimates stay, and age.
func (m *Measured) Observe(pods []Pod, now time.Time) {
	if len(pods) == 0 {
		return
	}
	m.feed.Lock()
	defer m.feed.Unlock()
	m.est.Observe(pods)
	costs := make(map[types.NamespacedName]corev1.ResourceList, len(m.est.order))
	for _, key := range m.est.Known() {
		if c := m.est.Cost(key); len(c) > 0 {
			costs[key] = c
		}
	}
	m.mu.Lock()
	m.costs, m.at = costs, now
	m.mu.Unlock()
}

// EstimatedCost implements vsched.CostEstimates: the source's estimate,
// nil when it has none or when the last measured round is older than
// MaxAge.
func (m *Measured) EstimatedCost(key types.NamespacedName) corev1.ResourceList {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.expiredLocked(m.opts.Now()) {
		return nil
	}
	return m.costs[key]
}

// Expired reports whether, at now, estimates exist but are older than
// MaxAge: the sources count their declared costs instead.
func (m *Measured) Expired(now time.Time) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.costs) > 0 && m.expiredLocked(now)
}

// MeasuredAt is when the last round that measured a pod ran, zero when
// none has.
func (m *Measured) MeasuredAt() time.Time {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.at
}

func (m *Measured) expiredLocked(now time.Time) bool {
	return m.at.IsZero() || now.Sub(m.at) > m.opts.MaxAge
}
