package sim

import (
	"encoding/json"
	"strings"
	"time"
)

// SignalSpec is a signal step: the demand signal of one source from the
// step's clock on, in the shapes of sourceautoscaler/signal/scripted, and
// the knobs of its source autoscaler policy that a scenario sets.
type SignalSpec struct {
	// Source is "namespace/name"; a source not yet scheduled is created
	// with Min vreplicas.
	Source string `json:"source"`
	// Shape is constant, step, ramp or burst.
	Shape string `json:"shape"`
	// From is the value before the change (step, ramp, burst: the base).
	From float64 `json:"from"`
	// To is the value after the change (constant: the value). Required.
	To *float64 `json:"to"`
	// After is when the change starts, from the step's clock ("30s").
	After string `json:"after"`
	// Over is how long a ramp climbs or a burst lasts. Required for them.
	Over string `json:"over"`
	// Noise is a fraction in [0, 1): each polling interval's value is off
	// by up to that much, the same for the same Seed.
	Noise float64 `json:"noise"`
	Seed  int64   `json:"seed"`
	// Target is the demand one vreplica serves (default 100); Min and Max
	// bound the vreplicas (defaults 0 and 50), as config-source-autoscaler.
	Target *float64 `json:"target"`
	Min    *int32   `json:"min"`
	Max    *int32   `json:"max"`

	after, over time.Duration
}

// TrafficSpec is a traffic step: the clock moves by For in steps of Every
// (the polling interval), and at each the source autoscaler decides every
// signalled source's vreplicas, the scheduler places them and the pod
// autoscaler sizes the StatefulSet.
type TrafficSpec struct {
	For   string `json:"for"`
	Every string `json:"every"`

	dur, every time.Duration
}

// signalShapes are the shapes a signal step takes.
var signalShapes = []string{"constant", "step", "ramp", "burst"}

// maxTrafficTicks bounds a traffic step's polling intervals: a day at 10 s.
const maxTrafficTicks = 8640

// Default polling interval of a traffic step (config-source-autoscaler's).
const defaultEvery = 10 * time.Second

func (s *Step) decodeSignal(d *decoder, raw json.RawMessage, ap path) {
	var sp SignalSpec
	d.decode(raw, reflectValue(&sp), ap)
	sp.after = durationField(d, sp.After, ap.key("after"))
	sp.over = durationField(d, sp.Over, ap.key("over"))
	s.Signal = &sp
}

func (s *Step) decodeTraffic(d *decoder, raw json.RawMessage, ap path) {
	var tr TrafficSpec
	d.decode(raw, reflectValue(&tr), ap)
	tr.dur = durationField(d, tr.For, ap.key("for"))
	tr.every = durationField(d, tr.Every, ap.key("every"))
	if tr.Every == "" {
		tr.every = defaultEvery
	}
	s.Traffic = &tr
}

// durationField parses an optional duration field ("" is 0).
func durationField(d *decoder, str string, p path) time.Duration {
	if str == "" {
		return 0
	}
	dur, err := time.ParseDuration(strings.TrimSpace(str))
	if err != nil {
		d.problem(p, "%q is not a duration; write one such as 5m, 90s or 1h30m", str)
	}
	return dur
}

// signalStep checks a signal step.
func (v *validator) signalStep(sp *SignalSpec, ap path) {
	v.sourceKey(ap.key("source"), sp.Source)
	switch sp.Shape {
	case "":
		v.problem(ap.key("shape"), "required: one of %s", strings.Join(signalShapes, ", "))
	case "constant", "step", "ramp", "burst":
	default:
		v.problem(ap.key("shape"), "unknown shape %q%s; a shape is one of %s", sp.Shape, didYouMean(sp.Shape, signalShapes), strings.Join(signalShapes, ", "))
	}
	if sp.To == nil {
		v.problem(ap.key("to"), "required: the signal's value after the change")
	} else if *sp.To < 0 || sp.From < 0 {
		v.problem(ap.key("to"), "a signal is never negative (lag or events per second)")
	}
	if (sp.Shape == "ramp" || sp.Shape == "burst") && sp.over <= 0 {
		v.problem(ap.key("over"), "required for a %s: how long it lasts, such as 2m", sp.Shape)
	}
	if sp.after < 0 {
		v.problem(ap.key("after"), "must not be negative, not %s", sp.after)
	}
	if sp.Noise < 0 || sp.Noise >= 1 {
		v.problem(ap.key("noise"), "must be in [0, 1), not %g", sp.Noise)
	}
	if sp.Target != nil && *sp.Target <= 0 {
		v.problem(ap.key("target"), "must be above 0, not %g", *sp.Target)
	}
	lo, hi := int32(0), int32(50)
	if sp.Min != nil {
		lo = *sp.Min
	}
	if sp.Max != nil {
		hi = *sp.Max
	}
	if lo < 0 || lo > hi {
		v.problem(ap.key("min"), "must be in [0, max=%d], not %d", hi, lo)
	}
}

// trafficStep checks a traffic step.
func (v *validator) trafficStep(tr *TrafficSpec, ap path) {
	switch {
	case tr.For == "":
		v.problem(ap.key("for"), "required: how long the traffic runs, such as 10m or 24h")
	case tr.dur <= 0:
		v.problem(ap.key("for"), "must move the clock forward, not by %s", tr.dur)
	}
	if tr.every < time.Second {
		v.problem(ap.key("every"), "the polling interval must be at least 1s, not %s", tr.every)
		return
	}
	if tr.dur > 0 && tr.dur/tr.every > maxTrafficTicks {
		v.problem(ap.key("for"), "%s at %s is %d polling intervals, more than %d; poll less often or split the step", tr.dur, tr.every, tr.dur/tr.every, maxTrafficTicks)
	}
}
