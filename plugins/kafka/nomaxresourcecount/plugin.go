package nomaxresourcecount

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/internal/podlimit"
)

// Spec registers the plugin. NumPartitions has no default: unset means
// "only sources reporting their own count are limited".
var Spec = framework.Spec[Args]{
	Name:     Name,
	Kinds:    framework.KindFilter,
	Modes:    framework.ForPlace,
	Validate: Validate,
	New:      framework.NewFunc(New),
}

// Plugin is the NoMaxResourceCount filter. It holds only its configuration
// and is safe for concurrent decisions.
type Plugin struct {
	numPartitions int32 // 0 when unset
}

var (
	_ framework.FilterPlugin         = &Plugin{}
	_ framework.PreparePlugin        = &Plugin{}
	_ framework.EquivalenceAware     = &Plugin{}
	_ framework.ZoneEquivalenceAware = &Plugin{}
)

// New builds the plugin from args (nil means none), validating them again so
// that embedders bypassing the registry get the same checks.
func New(_ context.Context, args *Args) (*Plugin, error) {
	a, err := framework.DefaultedArgs(Name, args, nil, Validate)
	if err != nil {
		return nil, err
	}
	pl := &Plugin{}
	if a.NumPartitions != nil {
		pl.numPartitions = *a.NumPartitions
	}
	return pl, nil
}

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// EquivalentWithinClass implements framework.EquivalenceAware: pods of one
// class all hold none of the source, and the plugin looks at nothing else
// about a pod.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: on the
// nodes the source does not use, what the plugin reads of a pod is its zone's
// and the source's counts, and of the pod itself what EquivalentWithinClass
// already orders.
func (*Plugin) EquivalentWithinZone() bool { return true }

// limit returns the most pods the source may span and where that number
// comes from; ok is false when the source is not limited.
func (pl *Plugin) limit(d *framework.Decision) (n int32, from string, ok bool) {
	if rc := d.ResourceCount(); rc > 0 {
		return rc, "the source's resource count", true
	}
	if pl.numPartitions > 0 {
		return pl.numPartitions, "NumPartitions", true
	}
	return 0, "", false
}

// Prepare implements framework.PreparePlugin. An unlimited source skips the
// plugin, which keeps it out of explanations where it could say nothing. A
// limited one publishes its limit so that EvenPodSpread stops counting pods
// the source may never use.
func (pl *Plugin) Prepare(_ context.Context, d *framework.Decision) *framework.Status {
	n, _, ok := pl.limit(d)
	if !ok {
		return framework.NewStatus(framework.Skip)
	}
	podlimit.Set(d, n)
	return nil
}

// atLimit is the rejection when its reasons will not be read.
var atLimit = framework.NewStatus(framework.UnschedulableAndUnresolvable)

// Filter implements framework.FilterPlugin. The rejection is unresolvable
// because placing never lowers the number of pods the source spans.
func (pl *Plugin) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	if d.OnPod(ordinal) > 0 {
		return nil
	}
	n, from, ok := pl.limit(d)
	if !ok || int64(d.PodsHeld()) < int64(n) {
		return nil
	}
	if !d.ReasonsWanted() {
		return atLimit
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf(
		"the source already spans %d pod(s), the limit set by %s (%d); only pods holding it may take more",
		d.PodsHeld(), from, n))
}

// EquivalentHolders implements framework.HolderEquivalenceAware: a holder
// always passes.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.FilterInputs = &Plugin{}

// FilterReads implements framework.FilterInputs: of the pod, the verdict
// reads whether it holds the source.
func (*Plugin) FilterReads() framework.Scope { return framework.ScopePod }

// FilterSummary implements framework.FilterInputs: whether the source
// spans as many pods as its limit allows (the limit does not change
// during a decision).
func (pl *Plugin) FilterSummary(d *framework.Decision) framework.ScoreSummary {
	n, _, ok := pl.limit(d)
	if ok && int64(d.PodsHeld()) >= int64(n) {
		return framework.ScoreSummary{1}
	}
	return framework.ScoreSummary{}
}
