package scripted

import (
	"context"
	"sync"
	"time"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// Provider serves samples from scripts. Targets are matched by ID (or
// Key.String() when ID is empty); a target without a script is unknown.
// It is safe for concurrent use.
type Provider struct {
	name string
	now  func() time.Time

	mu      sync.Mutex
	series  map[string]Series
	samples map[string]signal.Sample
	fail    []error
	hang    bool
	stale   time.Duration
	calls   int
	targets int
}

// New returns a provider named name reading the time from now.
func New(name string, now func() time.Time) *Provider {
	return &Provider{name: name, now: now, series: map[string]Series{}, samples: map[string]signal.Sample{}}
}

// Name implements signal.Provider.
func (p *Provider) Name() string { return p.name }

// SetSeries makes id's value s(now), measured now.
func (p *Provider) SetSeries(id string, s Series) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.samples, id)
	p.series[id] = s
}

// SetSample makes id's sample smp exactly (its At included).
func (p *Provider) SetSample(id string, smp signal.Sample) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.series, id)
	p.samples[id] = smp
}

// FailNext makes the next rounds fail with errs, one each.
func (p *Provider) FailNext(errs ...error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail = append(p.fail, errs...)
}

// Hang makes every round block until its context is done (on) or not.
func (p *Provider) Hang(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hang = on
}

// Stale dates the series' samples d before now (0: now).
func (p *Provider) Stale(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stale = d
}

// Calls returns the rounds served (failed ones included) and the targets
// asked for over all of them.
func (p *Provider) Calls() (rounds, targets int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls, p.targets
}

// Fetch implements signal.Provider: one round for every target.
func (p *Provider) Fetch(ctx context.Context, targets []signal.Target, out []signal.Sample) error {
	p.mu.Lock()
	p.calls++
	p.targets += len(targets)
	hang := p.hang
	var err error
	if len(p.fail) > 0 {
		err, p.fail = p.fail[0], p.fail[1:]
	}
	p.mu.Unlock()
	if hang {
		<-ctx.Done()
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for i, t := range targets {
		out[i] = p.sample(t, now)
	}
	return nil
}

func (p *Provider) sample(t signal.Target, now time.Time) signal.Sample {
	id := t.ID
	if id == "" {
		id = t.Key.String()
	}
	if smp, ok := p.samples[id]; ok {
		return smp
	}
	if s, ok := p.series[id]; ok {
		return signal.Sample{Known: true, Value: s(now), At: now.Add(-p.stale)}
	}
	return signal.Sample{}
}
