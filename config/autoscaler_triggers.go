package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
)

// Usage triggers (issue 23), as the Maestro autoscaler has them: ordered
// lists of triggers for scaling up and down, the first that matches wins.
const (
	// KeyTriggers holds the triggers policy's up and down lists, a JSON
	// object (Triggers).
	KeyTriggers = "triggers"
	// PolicyTriggers scales on the triggers of KeyTriggers, never below
	// what PolicyFit needs.
	PolicyTriggers = "triggers"

	// TriggerRoom is the share of the StatefulSet's slots in use (the
	// vreplicas held and pending over replicas times capacity).
	TriggerRoom = "room"
	// TriggerCPU and TriggerMemory are the adapter pods' usage over their
	// requests of the resource, summed over the pods.
	TriggerCPU    = "cpu"
	TriggerMemory = "memory"

	// MaxTriggers bounds each list.
	MaxTriggers = 20
	// MaxTriggerTime bounds a trigger's time window and a cooldown.
	MaxTriggerTime = 24 * time.Hour
	// MaxTriggerUsage bounds a trigger's usage and limit, in percent:
	// cpu and memory usage over requests may pass 100%.
	MaxTriggerUsage = 1000
)

var triggerTypes = []string{TriggerRoom, TriggerCPU, TriggerMemory}

// Triggers are the triggers policy's lists.
type Triggers struct {
	Up   TriggerList `json:"up"`
	Down TriggerList `json:"down"`
}

// TriggerList is one direction's ordered triggers and the cooldown after a
// scale before they act again.
type TriggerList struct {
	Triggers []Trigger `json:"triggers"`
	// Cooldown, a Go duration ("5m"), is how long after the StatefulSet's
	// size last changed these triggers wait (a limit excepted).
	Cooldown Duration `json:"cooldown,omitempty"`
}

// Trigger scales when more than Threshold percent of the points of the
// last Time are above (up) or below (down) Usage percent.
type Trigger struct {
	// Type is TriggerRoom, TriggerCPU or TriggerMemory.
	Type string `json:"type"`
	// Usage is the target usage in percent: 1 to 100 for room, to
	// MaxTriggerUsage for cpu and memory.
	Usage int32 `json:"usage"`
	// Threshold is the share of the points, in percent (0 to 99), that
	// must be above (below) Usage.
	Threshold int32 `json:"threshold"`
	// Time is the window of points considered; the trigger acts only once
	// it has watched a whole window.
	Time Duration `json:"time"`
	// Limit (up only; 0: none) acts at once, cooldown or not, when the
	// latest point is at or above it. Above Usage, to MaxTriggerUsage.
	Limit int32 `json:"limit,omitempty"`
}

// Duration is a time.Duration written as a Go duration string in JSON.
type Duration struct{ time.Duration }

// UnmarshalJSON reads "30s", "10m".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration such as \"10m\": %v", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// triggers reads KeyTriggers.
func (p *valueParser) triggers(key string, dst **Triggers) {
	v, ok := p.value(key)
	if !ok {
		return
	}
	var t Triggers
	if err := framework.DecodeStrict([]byte(v), &t); err != nil {
		p.fail(key, v, err.Error())
		return
	}
	*dst = &t
	p.given[key] = true
}

// triggers checks every trigger: its type and bounds, no limit on a down
// trigger, the bounds of the lists and cooldowns.
func (v *autoscalerCheck) triggers() {
	t := v.cfg.Triggers
	if t == nil || !v.check(KeyTriggers) {
		return
	}
	path := dataPath.Child(KeyTriggers)
	v.errs = append(v.errs, checkTriggerList(path.Child("up"), t.Up, true)...)
	v.errs = append(v.errs, checkTriggerList(path.Child("down"), t.Down, false)...)
}

func checkTriggerList(path *field.Path, l TriggerList, up bool) field.ErrorList {
	var errs field.ErrorList
	if len(l.Triggers) > MaxTriggers {
		errs = append(errs, field.TooMany(path.Child("triggers"), len(l.Triggers), MaxTriggers))
	}
	if c := l.Cooldown.Duration; c < 0 || c > MaxTriggerTime {
		errs = append(errs, field.Invalid(path.Child("cooldown"), c.String(), fmt.Sprintf("must be between 0 and %v", MaxTriggerTime)))
	}
	for i, tr := range l.Triggers {
		errs = append(errs, checkTrigger(path.Child("triggers").Index(i), tr, up)...)
	}
	return errs
}

func checkTrigger(path *field.Path, tr Trigger, up bool) field.ErrorList {
	var errs field.ErrorList
	if !slices.Contains(triggerTypes, tr.Type) {
		errs = append(errs, notSupported(path.Child("type"), tr.Type, triggerTypes))
	}
	most := int32(MaxTriggerUsage)
	if tr.Type == TriggerRoom {
		most = 100
	}
	if tr.Usage < 1 || tr.Usage > most {
		errs = append(errs, field.Invalid(path.Child("usage"), tr.Usage, fmt.Sprintf("must be between 1 and %d (percent)", most)))
	}
	if tr.Threshold < 0 || tr.Threshold > 99 {
		errs = append(errs, field.Invalid(path.Child("threshold"), tr.Threshold, "must be between 0 and 99 (percent of the points)"))
	}
	if d := tr.Time.Duration; d < 0 || d > MaxTriggerTime {
		errs = append(errs, field.Invalid(path.Child("time"), d.String(), fmt.Sprintf("must be between 0 and %v", MaxTriggerTime)))
	}
	switch {
	case tr.Limit != 0 && !up:
		errs = append(errs, field.Forbidden(path.Child("limit"), "a limit is for up triggers only"))
	case tr.Limit != 0 && (tr.Limit <= tr.Usage || tr.Limit > MaxTriggerUsage):
		errs = append(errs, field.Invalid(path.Child("limit"), tr.Limit, fmt.Sprintf("must be above usage (%d) and at most %d", tr.Usage, MaxTriggerUsage)))
	}
	return errs
}
