package frameworktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/vsched/vsched/framework"
)

// Names of the fake plugins. Each fake with a PluginName field uses it
// instead when set, so one profile can hold several of a kind.
const (
	CapacityName      = "FakeCapacity"
	RejectName        = "FakeReject"
	ScriptedName      = "FakeScripted"
	FailingName       = "FakeFailing"
	SkippingName      = "FakeSkipping"
	NormalizingName   = "FakeNormalizing"
	RecorderName      = "FakeRecorder"
	MaxPodsName       = "FakeMaxPods"
	ZoneSpreadName    = "FakeZoneSpread"
	NodeSpreadName    = "FakeNodeSpread"
	PodSpreadName     = "FakePodSpread"
	LowestOrdinalName = "FakeLowestOrdinal"
	ZoneCounterName   = "FakeZoneCounter"
)

func nameOr(name, def string) string {
	if name != "" {
		return name
	}
	return def
}

// zoneEquivalent makes the plugins embedding it EquivalenceAware and
// ZoneEquivalenceAware: each reads only what those promises allow.
type zoneEquivalent struct{}

// EquivalentWithinClass implements framework.EquivalenceAware.
func (zoneEquivalent) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware.
func (zoneEquivalent) EquivalentWithinZone() bool { return true }

// CapacityFilter rejects, when placing, pods without free capacity, as
// PodFitsResources does. It passes every pod when removing. It is
// equivalence-aware: a class only holds pods with free capacity, all of
// which pass.
type CapacityFilter struct{ zoneEquivalent }

var (
	_ framework.FilterPlugin     = CapacityFilter{}
	_ framework.CapacityEnforcer = CapacityFilter{}
	_ framework.EquivalenceAware = CapacityFilter{}
)

// CapacityReason is CapacityFilter's rejection reason.
const CapacityReason = "pod has no free capacity"

func (CapacityFilter) Name() string { return CapacityName }

// Filter implements framework.FilterPlugin.
func (CapacityFilter) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if d.Mode() == framework.Place && d.Free(ordinal) <= 0 {
		return framework.NewStatus(framework.Unschedulable, CapacityReason)
	}
	return nil
}

// EnforcesCapacity implements framework.CapacityEnforcer.
func (CapacityFilter) EnforcesCapacity() bool { return true }

// RejectFilter rejects the listed ordinals. It is not equivalence-aware: two
// pods of one class may be listed differently.
type RejectFilter struct {
	PluginName string
	Ordinals   []int32
	// Code is the rejection's code; Success (the zero value) means
	// Unschedulable.
	Code framework.Code
	// Reason defaults to "ordinal <n> is rejected".
	Reason string
}

var _ framework.FilterPlugin = &RejectFilter{}

func (f *RejectFilter) Name() string { return nameOr(f.PluginName, RejectName) }

// Filter implements framework.FilterPlugin.
func (f *RejectFilter) Filter(_ context.Context, _ *framework.Decision, ordinal int32) *framework.Status {
	if !slices.Contains(f.Ordinals, ordinal) {
		return nil
	}
	code := f.Code
	if code == framework.Success {
		code = framework.Unschedulable
	}
	reason := f.Reason
	if reason == "" {
		reason = fmt.Sprintf("ordinal %d is rejected", ordinal)
	}
	return framework.NewStatus(code, reason)
}

// ScriptedScorer scores each pod from a table, out-of-range values included,
// so tests can check the runtime's arithmetic and its range check. It is
// not equivalence-aware unless Equivalent is set.
type ScriptedScorer struct {
	PluginName string
	Scores     map[int32]int64
	// Default scores ordinals missing from Scores.
	Default int64
	// Equivalent is what EquivalentWithinClass returns; set it only when
	// the table keeps the promise for the cluster at hand.
	Equivalent bool
}

var (
	_ framework.ScorePlugin      = &ScriptedScorer{}
	_ framework.EquivalenceAware = &ScriptedScorer{}
)

func (s *ScriptedScorer) Name() string { return nameOr(s.PluginName, ScriptedName) }

// Score implements framework.ScorePlugin.
func (s *ScriptedScorer) Score(_ context.Context, _ *framework.Decision, ordinal int32) (int64, *framework.Status) {
	if v, ok := s.Scores[ordinal]; ok {
		return v, nil
	}
	return s.Default, nil
}

// EquivalentWithinClass implements framework.EquivalenceAware.
func (s *ScriptedScorer) EquivalentWithinClass() bool { return s.Equivalent }

// Stage is a plugin call a FailingPlugin can fail in.
type Stage string

const (
	AtPrepare Stage = "prepare"
	AtFilter  Stage = "filter"
	AtScore   Stage = "score"
)

// FailingPlugin is a prepare, filter and score plugin that returns a non-
// success status from the call named by At and succeeds (passing, scoring 0)
// elsewhere.
type FailingPlugin struct {
	PluginName string
	At         Stage
	// Code is the failure's code; Success (the zero value) means Error.
	Code framework.Code
	// Err is wrapped when Code is Error; nil means ErrFake.
	Err error
}

// ErrFake is FailingPlugin's default error.
var ErrFake = errors.New("fake plugin failure")

var (
	_ framework.PreparePlugin = &FailingPlugin{}
	_ framework.FilterPlugin  = &FailingPlugin{}
	_ framework.ScorePlugin   = &FailingPlugin{}
)

func (f *FailingPlugin) Name() string { return nameOr(f.PluginName, FailingName) }

func (f *FailingPlugin) status(at Stage) *framework.Status {
	if at != f.At {
		return nil
	}
	switch f.Code {
	case framework.Success, framework.Error:
		err := f.Err
		if err == nil {
			err = ErrFake
		}
		return framework.AsStatus(err)
	default:
		return framework.NewStatus(f.Code, "fake "+string(at)+" status")
	}
}

// Prepare implements framework.PreparePlugin.
func (f *FailingPlugin) Prepare(context.Context, *framework.Decision) *framework.Status {
	return f.status(AtPrepare)
}

// Filter implements framework.FilterPlugin.
func (f *FailingPlugin) Filter(context.Context, *framework.Decision, int32) *framework.Status {
	return f.status(AtFilter)
}

// Score implements framework.ScorePlugin.
func (f *FailingPlugin) Score(context.Context, *framework.Decision, int32) (int64, *framework.Status) {
	return 0, f.status(AtScore)
}

// SkippingPlugin's Prepare returns Skip. Were its other calls made anyway,
// it would reject every pod and score each MaxScore; it counts them so tests
// can check they are not.
type SkippingPlugin struct {
	zoneEquivalent
	PluginName string
	// Filtered, Scored and Changes count the calls that should not happen.
	Filtered, Scored, Changes atomic.Int64
}

var (
	_ framework.PreparePlugin    = &SkippingPlugin{}
	_ framework.FilterPlugin     = &SkippingPlugin{}
	_ framework.ScorePlugin      = &SkippingPlugin{}
	_ framework.ChangeObserver   = &SkippingPlugin{}
	_ framework.CapacityEnforcer = &SkippingPlugin{}
	_ framework.EquivalenceAware = &SkippingPlugin{}
)

func (s *SkippingPlugin) Name() string { return nameOr(s.PluginName, SkippingName) }

// Prepare implements framework.PreparePlugin.
func (s *SkippingPlugin) Prepare(context.Context, *framework.Decision) *framework.Status {
	return framework.NewStatus(framework.Skip)
}

// Filter implements framework.FilterPlugin.
func (s *SkippingPlugin) Filter(context.Context, *framework.Decision, int32) *framework.Status {
	s.Filtered.Add(1)
	return framework.NewStatus(framework.Unschedulable, "skipped plugin was called")
}

// Score implements framework.ScorePlugin.
func (s *SkippingPlugin) Score(context.Context, *framework.Decision, int32) (int64, *framework.Status) {
	s.Scored.Add(1)
	return framework.MaxScore, nil
}

// Changed implements framework.ChangeObserver.
func (s *SkippingPlugin) Changed(*framework.Decision, int32, int32) { s.Changes.Add(1) }

// EnforcesCapacity implements framework.CapacityEnforcer, so that a profile
// can be built with this as its only filter, and the runtime must notice
// that the capacity enforcer skipped itself.
func (s *SkippingPlugin) EnforcesCapacity() bool { return true }

// NormalizingScorer scores each pod Raw[ordinal] (0 when missing) and
// normalizes so that the highest raw score becomes MaxScore and the others
// scale with it (integer division).
type NormalizingScorer struct {
	PluginName string
	Raw        map[int32]int64
	// Fail makes NormalizeScores return an Error status.
	Fail bool
	// Calls counts NormalizeScores calls.
	Calls atomic.Int64
}

var (
	_ framework.ScorePlugin     = &NormalizingScorer{}
	_ framework.ScoreNormalizer = &NormalizingScorer{}
)

func (n *NormalizingScorer) Name() string { return nameOr(n.PluginName, NormalizingName) }

// Score implements framework.ScorePlugin.
func (n *NormalizingScorer) Score(_ context.Context, _ *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return n.Raw[ordinal], nil
}

// NormalizeScores implements framework.ScoreNormalizer.
func (n *NormalizingScorer) NormalizeScores(_ context.Context, _ *framework.Decision, scores []framework.PodScore) *framework.Status {
	n.Calls.Add(1)
	if n.Fail {
		return framework.AsStatus(ErrFake)
	}
	var top int64
	for _, s := range scores {
		top = max(top, s.Score)
	}
	for i := range scores {
		if top > 0 {
			scores[i].Score = scores[i].Score * framework.MaxScore / top
		}
	}
	return nil
}
