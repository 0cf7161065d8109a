package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// The values of Config.InitialOffset.
const (
	// Latest: a partition the group has never committed on has no lag; its
	// consumer starts at the end (KafkaSource's default initialOffset, and
	// KEDA's default offsetResetPolicy).
	Latest = "latest"
	// Earliest: a partition the group has never committed on lags by every
	// record it still holds (end offset minus start offset).
	Earliest = "earliest"
)

// Config configures a LagProvider.
type Config struct {
	// Client is the franz-go client that talks to the brokers. The caller
	// builds it (seed brokers, TLS, SASL) and closes it; it must not be a
	// consumer-group client.
	Client *kgo.Client
	// InitialOffset says what a partition the group has never committed on
	// lags by: Latest (the default when empty) or Earliest.
	InitialOffset string
	// UnknownGroupIsNew measures a group the brokers do not know (never
	// created, or its offsets expired after offsets.retention.minutes
	// empty) as a group that has committed nothing, so its lag follows
	// InitialOffset, when its target names its Topics. When false (the
	// default), or without Topics, such a group is Known false.
	UnknownGroupIsNew bool
	// Now is the provider's clock, which stamps Sample.At; nil means
	// time.Now.
	Now func() time.Time
}

// LagProvider reports consumer-group lag; it implements signal.Provider.
// A target's ID is its consumer group, and its Topics the topics the group
// reads (when nil, the topics the group's members are assigned and those
// it has committed on).
type LagProvider struct {
	adm          *kadm.Client
	earliest     bool
	unknownIsNew bool
	now          func() time.Time

	// mu guards prev: each partition's state at the previous round.
	mu   sync.Mutex
	prev map[partKey]partState
}

var _ signal.Provider = (*LagProvider)(nil)

type partKey struct {
	group, topic string
	partition    int32
}

// partState is what a round saw of a partition: the group's committed
// offset (-1 for none) and whether the partition lagged.
type partState struct {
	commit int64
	lagged bool
}

// NewLagProvider validates cfg and returns a provider.
func NewLagProvider(cfg Config) (*LagProvider, error) {
	if cfg.Client == nil {
		return nil, errors.New("kafka: Config.Client: required (a *kgo.Client built with the seed brokers)")
	}
	p := &LagProvider{adm: kadm.NewClient(cfg.Client), unknownIsNew: cfg.UnknownGroupIsNew, now: cfg.Now}
	switch cfg.InitialOffset {
	case "", Latest:
	case Earliest:
		p.earliest = true
	default:
		return nil, fmt.Errorf("kafka: Config.InitialOffset: %q is not one of %q, %q", cfg.InitialOffset, Latest, Earliest)
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p, nil
}

// Name implements signal.Provider.
func (p *LagProvider) Name() string { return "kafka" }

// Fetch implements signal.Provider: one round for every target's group.
// Value is the total lag in records; a group the brokers do not know (no
// members and no commits; unless UnknownGroupIsNew and its target names
// its topics), or a topic or partition that cannot be listed, gives Known
// false and an otherwise zero sample.
func (p *LagProvider) Fetch(ctx context.Context, targets []signal.Target, out []signal.Sample) error {
	if len(out) != len(targets) {
		return fmt.Errorf("kafka: Fetch: %d samples for %d targets", len(out), len(targets))
	}
	clear(out)
	if len(targets) == 0 {
		return nil
	}
	r, err := p.round(ctx, targets)
	if err != nil {
		return err
	}
	at := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	next := make(map[partKey]partState, len(p.prev))
	for i := range targets {
		out[i] = r.measure(groupOf(targets[i]), targets[i].Topics, p.prev, next)
		if out[i].Known {
			out[i].At = at
		}
	}
	p.prev = next
	return nil
}

// groupOf is the consumer group of a target, as signal.Target documents.
func groupOf(t signal.Target) string {
	if t.ID != "" {
		return t.ID
	}
	return t.Key.String()
}
