package sourceautoscaler

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/internal/lib/vlog"
	"github.com/vsched/vsched/sourceautoscaler/decision"
	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// chunk is the most sources decided under one hold of the lock, so that
// Upsert and Delete never wait for a whole cycle of a large fleet.
const chunk = 512

// abandonAfter is how long past its timeout a provider's round is waited
// for before the cycle goes on without it (a provider that ignores its
// context must not stop the loop).
const abandonAfter = time.Second

// ErrNotLeader is the write error of a decision made while leading and
// dropped because the replica stopped leading before writing it.
var ErrNotLeader = errors.New("sourceautoscaler: not the leader: nothing written")

// round is one provider's request of a cycle: its due sources.
type round struct {
	targets []signal.Target
	out     []signal.Sample
	slots   []int32
	gens    []uint32
	err     error
}

type write struct {
	slot    int32
	gen     uint32
	key     types.NamespacedName
	to      int32
	decided int
}

type decided struct {
	key types.NamespacedName
	d   decision.Decision
	err error
}

type problem struct {
	key types.NamespacedName
	err error
}

// Stats count what a cycle did.
type Stats struct {
	// Due sources were decided; Rounds is the providers asked (one each
	// at most), Failed the rounds that failed or timed out.
	Due, Rounds, Failed int
	// Written counts the counts written, WriteErrors the writes that
	// failed (a source gone counts as neither).
	Written, WriteErrors int
}

// Cycle runs one cycle: ask each provider once for its due sources,
// decide each, write what changed. It does nothing while not leading.
func (a *Autoscaler) Cycle(ctx context.Context) Stats {
	var st Stats
	if !a.o.IsLeader() {
		a.leading = false
		return st
	}
	now := a.o.Clock.Now()
	cfg := a.config()
	problems := a.gather(now, cfg)
	for _, p := range problems {
		if a.o.OnProblem != nil {
			a.o.OnProblem(p.key, p.err)
		}
	}
	log := vlog.Pick(ctx, a.log)
	a.fetch(ctx, cfg.FetchTimeout, &st, log)
	a.decide(now, &st)
	a.write(ctx, &st, log)
	for i := range a.decided {
		logDecided(log, a.decided[i])
		if a.o.OnDecision != nil {
			a.o.OnDecision(a.decided[i].key, a.decided[i].d, a.decided[i].err)
		}
		a.decided[i] = decided{}
	}
	a.decided = a.decided[:0]
	return st
}

// The cycle's log lines (info level), with the fields source
// (namespace/name), from, to, mode (decision.Mode's name) and why
// (Decision.Explain). Tests wait for them before asserting what follows.
const (
	// LogVReplicasWritten: a source's new vreplicas were written.
	LogVReplicasWritten = "source autoscaler wrote vreplicas"
	// LogSignalMissing: the first cycle without a value for a source; the
	// fallback decides its count until a value comes back.
	LogSignalMissing = "source autoscaler signal missing"
)

// logDecided logs a written change and a signal gone missing; a decision
// that changes nothing is not logged.
func logDecided(log *zap.SugaredLogger, d decided) {
	var msg string
	switch {
	case d.d.Desired != d.d.Current && d.err == nil:
		msg = LogVReplicasWritten
	case d.d.Mode == decision.Fallback && d.d.Missing == 1:
		msg = LogSignalMissing
	default:
		return
	}
	log.Infow(msg, "source", d.key.String(), "from", d.d.Current, "to", d.d.Desired, "mode", d.d.Mode.String(), "why", d.d.Explain())
}

// gather resolves the policies and collects each provider's due sources.
func (a *Autoscaler) gather(now time.Time, cfg *config.SourceAutoscalerConfig) []problem {
	a.mu.Lock()
	defer a.mu.Unlock()
	newTerm := !a.leading
	a.leading = true
	for i := range a.rounds {
		r := &a.rounds[i]
		r.targets, r.slots, r.gens, r.err = r.targets[:0], r.slots[:0], r.gens[:0], nil
	}
	var problems []problem
	t := now.UnixNano()
	for i := range a.slots {
		s := &a.slots[i]
		if !s.alive {
			continue
		}
		if newTerm {
			s.state.Reset()
			s.due = 0
		}
		if err := s.resolve(cfg); err != nil {
			problems = append(problems, problem{s.key, err})
		}
		// A due time further than a polling interval ahead means the
		// clock went back: due now.
		if s.due > t && s.due-t <= int64(s.policy.PollingInterval) {
			continue
		}
		r := &a.rounds[s.provider]
		r.targets = append(r.targets, s.target)
		r.slots = append(r.slots, int32(i))
		r.gens = append(r.gens, s.gen)
	}
	for i := range a.rounds {
		r := &a.rounds[i]
		if cap(r.out) < len(r.targets) {
			r.out = make([]signal.Sample, len(r.targets))
		}
		r.out = r.out[:len(r.targets)]
		clear(r.out)
	}
	return problems
}

// fetch asks every provider with due sources once, all at once, each
// bounded by timeout.
func (a *Autoscaler) fetch(ctx context.Context, timeout time.Duration, st *Stats, log *zap.SugaredLogger) {
	type result struct {
		err  error
		done chan struct{}
	}
	results := make([]*result, len(a.rounds))
	for i := range a.rounds {
		r := &a.rounds[i]
		if len(r.targets) == 0 {
			continue
		}
		st.Rounds++
		res := &result{done: make(chan struct{})}
		results[i] = res
		p, targets, out := a.providers[i], r.targets, r.out
		go func() {
			defer close(res.done)
			fctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			res.err = p.Fetch(fctx, targets, out)
		}()
	}
	// Real time, as the contexts' timeouts are.
	deadline := time.NewTimer(timeout + abandonAfter)
	defer deadline.Stop()
	for i, res := range results {
		if res == nil {
			continue
		}
		select {
		case <-res.done:
			a.rounds[i].err = res.err
		case <-deadline.C:
			a.abandon(i)
		}
		if a.rounds[i].err != nil {
			st.Failed++
			log.Warnw("signal round failed", "provider", a.providers[i].Name(), "sources", len(a.rounds[i].targets), "error", a.rounds[i].err)
		}
	}
}

// abandon leaves round i's buffers to the provider still writing them and
// gives the round new ones, every sample unknown.
func (a *Autoscaler) abandon(i int) {
	old := a.rounds[i]
	a.rounds[i] = round{
		targets: append([]signal.Target(nil), old.targets...),
		out:     make([]signal.Sample, len(old.targets)),
		slots:   old.slots, gens: old.gens,
		err: errors.New("sourceautoscaler: provider " + a.providers[i].Name() + " did not return after its timeout"),
	}
	for j := range old.targets {
		old.targets[j] = signal.Target{}
	}
}

// decide runs each due source's decision, a chunk at a time under the
// lock, skipping sources deleted since gather.
func (a *Autoscaler) decide(now time.Time, st *Stats) {
	t := now.UnixNano()
	n := 0
	a.mu.Lock()
	defer a.mu.Unlock()
	for pi := range a.rounds {
		r := &a.rounds[pi]
		for j, si := range r.slots {
			if n++; n%chunk == 0 {
				a.mu.Unlock()
				a.mu.Lock()
			}
			s := &a.slots[si]
			if !s.alive || s.gen != r.gens[j] {
				continue
			}
			st.Due++
			d := s.state.Decide(now, &s.policy, s.current, r.out[j], r.err == nil)
			s.last, s.lastAt, s.due = d, t, t+int64(s.policy.PollingInterval)
			a.decided = append(a.decided, decided{key: s.key, d: d})
			if d.Desired != d.Current {
				a.writes = append(a.writes, write{slot: si, gen: s.gen, key: s.key, to: d.Desired, decided: len(a.decided) - 1})
			}
		}
	}
}

// write writes the counts that changed, while leading, skipping sources
// deleted meanwhile.
func (a *Autoscaler) write(ctx context.Context, st *Stats, log *zap.SugaredLogger) {
	defer func() { a.writes = a.writes[:0] }()
	for _, w := range a.writes {
		if !a.o.IsLeader() {
			a.decided[w.decided].err = ErrNotLeader
			continue
		}
		if !a.live(w) {
			continue
		}
		err := a.o.Writer.WriteVReplicas(ctx, w.key, w.to)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			st.WriteErrors++
			a.decided[w.decided].err = err
			log.Warnw("writing vreplicas failed", "source", w.key.String(), "vreplicas", w.to, "error", err)
			continue
		}
		st.Written++
		a.mu.Lock()
		if s := &a.slots[w.slot]; s.alive && s.gen == w.gen {
			s.current = w.to
		}
		a.mu.Unlock()
	}
}

func (a *Autoscaler) live(w write) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := &a.slots[w.slot]
	return s.alive && s.gen == w.gen
}
