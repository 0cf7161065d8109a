package podfitsresources

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/framework"
)

// Spec registers the plugin. It takes no args.
var Spec = framework.Spec[framework.NoArgs]{
	Name:  Name,
	Kinds: framework.KindFilter,
	Modes: framework.ForPlace,
	New:   framework.NoArgsNewFunc(New),
}

// Plugin is the PodFitsResources filter. It is stateless and safe for
// concurrent decisions.
type Plugin struct{}

var (
	_ framework.FilterPlugin         = &Plugin{}
	_ framework.CapacityEnforcer     = &Plugin{}
	_ framework.EquivalenceAware     = &Plugin{}
	_ framework.ZoneEquivalenceAware = &Plugin{}
)

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// EnforcesCapacity implements framework.CapacityEnforcer.
func (*Plugin) EnforcesCapacity() bool { return true }

// EquivalentWithinClass implements framework.EquivalenceAware: pods of one
// class all have free capacity, so all pass.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: on the
// nodes the source does not use, what the plugin reads of a pod is its zone's
// and the source's counts, and of the pod itself what EquivalentWithinClass
// already orders.
func (*Plugin) EquivalentWithinZone() bool { return true }

// full is the rejection when its reasons will not be read.
var full = framework.NewStatus(framework.UnschedulableAndUnresolvable)

// Filter implements framework.FilterPlugin. The rejection is unresolvable
// because placing only ever lowers free capacity within a decision.
func (*Plugin) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	free := d.Free(ordinal)
	if free >= 1 {
		return nil
	}
	if !d.ReasonsWanted() {
		return full
	}
	c := d.Cluster()
	info, ok := c.Pod(ordinal)
	if !ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("pod with ordinal %d does not exist", ordinal))
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable,
		fmt.Sprintf("pod %s is full (%d/%d vreplicas)", info.Name, c.Capacity()-free, c.Capacity()))
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the verdict reads the pod's free
// capacity, which one holder class shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.FilterInputs = &Plugin{}

// FilterReads implements framework.FilterInputs: the verdict reads the
// pod's free capacity alone.
func (*Plugin) FilterReads() framework.Scope { return framework.ScopePod }

// FilterSummary implements framework.FilterInputs: nothing of the decision
// as a whole.
func (*Plugin) FilterSummary(*framework.Decision) framework.ScoreSummary {
	return framework.ScoreSummary{}
}
