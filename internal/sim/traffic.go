package sim

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/sourceautoscaler/decision"
	"github.com/vsched/vsched/sourceautoscaler/signal"
	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

// TrafficTick is one polling interval of a traffic step.
type TrafficTick struct {
	// Clock is the scenario's time since the start.
	Clock string `json:"clock"`
	// Pods is the StatefulSet's spec.replicas after the interval; Pending
	// the vreplicas of every source left without a pod.
	Pods    int32 `json:"pods"`
	Pending int32 `json:"pending"`
	// Sources are the signalled sources, in key order.
	Sources []SignalTick `json:"sources"`
}

// SignalTick is one source in one polling interval.
type SignalTick struct {
	Source    string  `json:"source"`
	Signal    float64 `json:"signal"`
	VReplicas int32   `json:"vreplicas"`
	Pending   int32   `json:"pending"`
	Mode      string  `json:"mode"`
}

// signals are the sources a signal step gave a signal, with their source
// autoscaler state, and the ticks of the running traffic step.
type signals struct {
	byKey map[string]*signalled
	keys  []string
	ticks []TrafficTick
}

type signalled struct {
	key    types.NamespacedName
	series scripted.Series
	policy decision.Policy
	state  decision.State
}

// setSignal gives a source its signal from now on, creating the source
// (with its minimum vreplicas) when it does not exist.
func (sim *simulation) setSignal(ctx context.Context, sp *SignalSpec) error {
	if sim.signals == nil {
		sim.signals = &signals{byKey: map[string]*signalled{}}
	}
	key, _ := SourceKey(sp.Source)
	sg := sim.signals.byKey[sp.Source]
	if sg == nil {
		sg = &signalled{key: key, policy: decision.DefaultPolicy()}
		sim.signals.byKey[sp.Source] = sg
		sim.signals.keys = append(sim.signals.keys, sp.Source)
		slices.Sort(sim.signals.keys)
	}
	if sp.Target != nil {
		sg.policy.Target = *sp.Target
	}
	if sp.Min != nil {
		sg.policy.Min = *sp.Min
	}
	if sp.Max != nil {
		sg.policy.Max = *sp.Max
	}
	sg.series = seriesOf(sp, sim.cluster.Clock().Now())
	if _, err := sim.sources.Get(key); err != nil {
		if _, err := sim.sources.Create(key, sg.policy.Min); err != nil {
			return err
		}
		return sim.reconcile(ctx, key)
	}
	return nil
}

// seriesOf builds the step's shape, its change starting After from now.
func seriesOf(sp *SignalSpec, now time.Time) scripted.Series {
	start := now.Add(sp.after)
	var s scripted.Series
	switch sp.Shape {
	case "step":
		s = scripted.Step(sp.From, *sp.To, start)
	case "ramp":
		s = scripted.Ramp(sp.From, *sp.To, start, start.Add(sp.over))
	case "burst":
		s = scripted.Burst(sp.From, *sp.To, start, sp.over)
	default:
		s = scripted.Constant(*sp.To)
	}
	if sp.Noise > 0 {
		s = scripted.Noise(s, sp.Noise, time.Second, uint64(sp.Seed))
	}
	return s
}

// traffic moves the clock by the step's For, one polling interval at a
// time: at each, the source autoscaler decides each signalled source's
// vreplicas from its signal, the scheduler places them, one pod autoscaler
// cycle sizes the StatefulSet and the pending vreplicas are scheduled
// again. Its notes are the source autoscaler's decisions that changed a
// count, with the numbers that made them.
func (sim *simulation) traffic(ctx context.Context, tr *TrafficSpec) ([]string, error) {
	if sim.signals == nil {
		return []string{"no source has a signal: give one with a signal step"}, nil
	}
	var notes []string
	var last *TrafficTick
	n := int(tr.dur / tr.every)
	for i := 1; i <= n; i++ {
		sim.cluster.Clock().Step(tr.every)
		changed, err := sim.decideAll(ctx, tr.every, &notes)
		if err != nil {
			return capNotes(notes), err
		}
		if _, err := sim.auto.autoscale(ctx); err != nil {
			return capNotes(notes), err
		}
		if err := sim.cluster.Sync(ctx); err != nil {
			return capNotes(notes), err
		}
		if err := sim.requeue(ctx); err != nil {
			return capNotes(notes), err
		}
		tick, err := sim.tick(changed)
		if err != nil {
			return capNotes(notes), err
		}
		if last == nil || i == n || !sameTick(*last, tick) {
			sim.signals.ticks = append(sim.signals.ticks, tick)
			last = &sim.signals.ticks[len(sim.signals.ticks)-1]
		}
	}
	return capNotes(notes), nil
}

// decideAll runs one source autoscaler cycle over the signalled sources
// and returns each one's signal and mode by key.
func (sim *simulation) decideAll(ctx context.Context, every time.Duration, notes *[]string) (map[string]decision.Decision, error) {
	now := sim.cluster.Clock().Now()
	out := make(map[string]decision.Decision, len(sim.signals.keys))
	for _, k := range sim.signals.keys {
		sg := sim.signals.byKey[k]
		v, err := sim.sources.Get(sg.key)
		if err != nil {
			continue // deleted by a step: no signal to act on
		}
		sg.policy.PollingInterval = every
		smp := signal.Sample{Known: true, Value: sg.series(now), At: now}
		d := sg.state.Decide(now, &sg.policy, v.GetVReplicas(), smp, true)
		out[k] = d
		if d.Desired == d.Current {
			continue
		}
		*notes = append(*notes, fmt.Sprintf("%s at %s: %s", k, now.Sub(sim.start), d.Explain()))
		if _, err := sim.sources.Update(sg.key, d.Desired); err != nil {
			return nil, err
		}
		if err := sim.reconcile(ctx, sg.key); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return out, nil
}

// tick records the polling interval that just ran.
func (sim *simulation) tick(ds map[string]decision.Decision) (TrafficTick, error) {
	t := TrafficTick{Clock: sim.cluster.Clock().Since(sim.start).String(), Pods: sim.cluster.Replicas()}
	list, err := sim.sources.List()
	if err != nil {
		return t, err
	}
	pending := map[string]int32{}
	for _, v := range list {
		p := max(0, v.GetVReplicas()-vsched.TotalVReplicas(v.GetPlacements()))
		pending[v.GetKey().String()] = p
		t.Pending += p
	}
	for _, k := range sim.signals.keys {
		d, ok := ds[k]
		if !ok {
			continue
		}
		t.Sources = append(t.Sources, SignalTick{Source: k, Signal: d.Signal, VReplicas: d.Desired, Pending: pending[k], Mode: d.Mode.String()})
	}
	return t, nil
}

// sameTick: nothing but the clock and the signal changed.
func sameTick(a, b TrafficTick) bool {
	if a.Pods != b.Pods || a.Pending != b.Pending || len(a.Sources) != len(b.Sources) {
		return false
	}
	for i := range a.Sources {
		x, y := a.Sources[i], b.Sources[i]
		if x.Source != y.Source || x.VReplicas != y.VReplicas || x.Pending != y.Pending || x.Mode != y.Mode {
			return false
		}
	}
	return true
}

// takeTicks returns the ticks of the step that just ran, and forgets them.
func (sim *simulation) takeTicks() []TrafficTick {
	if sim.signals == nil {
		return nil
	}
	t := sim.signals.ticks
	sim.signals.ticks = nil
	return t
}
