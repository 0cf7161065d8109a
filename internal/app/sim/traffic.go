package sim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/metric/noop"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/sourceautoscaler"
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

// signals are the sources a signal step gave a signal, the source
// autoscaler that decides their vreplicas (sourceautoscaler, on the
// simulated clock, with a scripted provider), and the ticks of the running
// traffic step.
type signals struct {
	auto     *sourceautoscaler.Autoscaler
	provider *scripted.Provider
	byKey    map[string]*signalled
	keys     []string
	ticks    []TrafficTick
	// decided and writes are the cycle's decisions and writes.
	decided map[string]decision.Decision
	writes  []sourceWrite
}

type signalled struct {
	key types.NamespacedName
	// annotations carry the signal step's target, min and max, and the
	// traffic step's polling interval, as a source's would.
	annotations map[string]string
}

// annotate sets the annotation key (under config.AnnotationPrefix) to v
// on a copy: the autoscaler keeps the map it was given and resolves the
// policy again only when it is another map, as an informer's object is.
func (s *signalled) annotate(key, v string) {
	k := config.AnnotationPrefix + key
	if old, ok := s.annotations[k]; ok && old == v {
		return
	}
	m := maps.Clone(s.annotations)
	m[k] = v
	s.annotations = m
}

type sourceWrite struct {
	key types.NamespacedName
	n   int32
}

func (sim *simulation) newSignals() (*signals, error) {
	sg := &signals{byKey: map[string]*signalled{}, decided: map[string]decision.Decision{}}
	sg.provider = scripted.New("scenario", sim.cluster.Clock().Now)
	a, err := sourceautoscaler.New(sourceautoscaler.Options{
		Providers: []signal.Provider{sg.provider},
		Writer: sourceautoscaler.WriterFunc(func(_ context.Context, key types.NamespacedName, n int32) error {
			sg.writes = append(sg.writes, sourceWrite{key, n})
			return nil
		}),
		OnDecision: func(key types.NamespacedName, d decision.Decision, _ error) {
			sg.decided[key.String()] = d
		},
		Clock:         sim.cluster.Clock(),
		MeterProvider: noop.NewMeterProvider(),
	})
	sg.auto = a
	return sg, err
}

// setSignal gives a source its signal from now on, creating the source
// (with its minimum vreplicas) when it does not exist.
func (sim *simulation) setSignal(ctx context.Context, sp *SignalSpec) error {
	if sim.signals == nil {
		sg, err := sim.newSignals()
		if err != nil {
			return err
		}
		sim.signals = sg
	}
	key, _ := SourceKey(sp.Source)
	sg := sim.signals.byKey[sp.Source]
	if sg == nil {
		sg = &signalled{key: key, annotations: map[string]string{}}
		sim.signals.byKey[sp.Source] = sg
		sim.signals.keys = append(sim.signals.keys, sp.Source)
		slices.Sort(sim.signals.keys)
	}
	set := func(k string, v string) { sg.annotate(k, v) }
	if sp.Target != nil {
		set(config.KeyLagThreshold, strconv.FormatFloat(*sp.Target, 'g', -1, 64))
	}
	if sp.Min != nil {
		set(config.KeyMinScale, strconv.Itoa(int(*sp.Min)))
	}
	if sp.Max != nil {
		set(config.KeyMaxScale, strconv.Itoa(int(*sp.Max)))
	}
	sim.signals.provider.SetSeries(sp.Source, seriesOf(sp, sim.cluster.Clock().Now()))
	if _, err := sim.sources.Get(key); err != nil {
		if _, err := sim.sources.Create(key, sp.minimum()); err != nil {
			return err
		}
		return sim.reconcile(ctx, key)
	}
	return nil
}

// minimum is the source's min-scale (0 when not given).
func (sp *SignalSpec) minimum() int32 {
	if sp.Min != nil {
		return *sp.Min
	}
	return 0
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
// time: at each, one source autoscaler cycle decides each signalled
// source's vreplicas from its signal, the scheduler places them, one pod
// autoscaler cycle sizes the StatefulSet and the pending vreplicas are
// scheduled again. Its notes are the source autoscaler's decisions that
// changed a count, with the numbers that made them.
func (sim *simulation) traffic(ctx context.Context, tr *TrafficSpec) ([]string, error) {
	if sim.signals == nil {
		return []string{"no source has a signal: give one with a signal step"}, nil
	}
	var notes []string
	var last *TrafficTick
	n := int(tr.dur / tr.every)
	for i := 1; i <= n; i++ {
		sim.cluster.Clock().Step(tr.every)
		if err := sim.decideAll(ctx, tr.every, &notes); err != nil {
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
		tick, err := sim.tick()
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
// that still exist, then writes the counts it decided and schedules them.
func (sim *simulation) decideAll(ctx context.Context, every time.Duration, notes *[]string) error {
	sg := sim.signals
	clear(sg.decided)
	for _, k := range sg.keys {
		s := sg.byKey[k]
		v, err := sim.sources.Get(s.key)
		if err != nil {
			sg.auto.Delete(s.key)
			continue // deleted by a step: no signal to act on
		}
		s.annotate(config.KeyPollingInterval, every.String())
		if err := sg.auto.Upsert(sourceautoscaler.Source{Key: s.key, Target: signal.Target{ID: k}, VReplicas: v.GetVReplicas(), Annotations: s.annotations}); err != nil {
			return err
		}
	}
	sg.auto.Cycle(ctx)
	now := sim.cluster.Clock().Now()
	writes := sg.writes
	sg.writes = sg.writes[:0]
	for _, w := range writes {
		*notes = append(*notes, fmt.Sprintf("%s at %s: %s", w.key, now.Sub(sim.start), sg.decided[w.key.String()].Explain()))
		if _, err := sim.sources.Update(w.key, w.n); err != nil {
			return err
		}
		if err := sim.reconcile(ctx, w.key); err != nil {
			return fmt.Errorf("%s: %w", w.key, err)
		}
	}
	return nil
}

// tick records the polling interval that just ran.
func (sim *simulation) tick() (TrafficTick, error) {
	ds := sim.signals.decided
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
