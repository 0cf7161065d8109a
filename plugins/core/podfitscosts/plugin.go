package podfitscosts

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/framework"
)

// Plugin is the PodFitsCosts filter. It is stateless and safe for
// concurrent decisions.
type Plugin struct{}

var _ framework.FilterPlugin = &Plugin{}

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// short is the rejection when its reasons will not be read.
var short = framework.NewStatus(framework.UnschedulableAndUnresolvable)

// Filter implements framework.FilterPlugin. The rejection is unresolvable
// because placing only ever lowers what a pod has left within a decision.
func (*Plugin) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	for dim, cost := range d.Cost() {
		if cost <= 0 || d.ResourceFree(ordinal, dim) >= cost {
			continue
		}
		if !d.ReasonsWanted() {
			return short
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reason(d, ordinal, dim))
	}
	return nil
}

// reason says which resource the pod lacks, with its use of each.
func reason(d *framework.Decision, ordinal int32, dim int) string {
	name := d.Resources().ResourceNames()[dim]
	pod := fmt.Sprintf("pod with ordinal %d", ordinal)
	if info, ok := d.Cluster().Pod(ordinal); ok {
		pod = "pod " + info.Name
	}
	return fmt.Sprintf("%s has %s of %s left, a vreplica costs %s (%s)", pod,
		framework.Milli(name, max(d.ResourceFree(ordinal, dim), 0)), name,
		framework.Milli(name, d.Cost()[dim]), d.ResourceUse(ordinal))
}
