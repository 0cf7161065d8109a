package frameworktest

import (
	"context"

	"github.com/vsched/vsched/framework"
)

// OnlyPod is a capacity filter that passes one pod while it has a free
// slot: a profile of it alone places a decision's vreplicas there, to set
// up what a decision placed before the plugin under test runs.
type OnlyPod int32

var _ framework.FilterPlugin = OnlyPod(0)

// Name implements framework.Plugin.
func (OnlyPod) Name() string { return "OnlyPod" }

// EnforcesCapacity implements framework.CapacityEnforcer.
func (OnlyPod) EnforcesCapacity() bool { return true }

// Filter implements framework.FilterPlugin.
func (o OnlyPod) Filter(_ context.Context, d *framework.Decision, ord int32) *framework.Status {
	if ord == int32(o) && d.Free(ord) > 0 {
		return nil
	}
	return framework.NewStatus(framework.Unschedulable, "not this one")
}
