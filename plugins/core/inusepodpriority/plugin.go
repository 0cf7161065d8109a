package inusepodpriority

import (
	"context"

	"github.com/vsched/vsched/framework"
)

// Spec registers the plugin. It takes no args.
var Spec = framework.Spec[framework.NoArgs]{
	Name:  Name,
	Kinds: framework.KindScore,
	Modes: framework.ForPlace,
	New:   framework.NoArgsNewFunc(New),
}

// Plugin is the InUsePodPriority score plugin. It is stateless and safe for
// concurrent decisions.
type Plugin struct{}

var (
	_ framework.ScorePlugin          = &Plugin{}
	_ framework.EquivalenceAware     = &Plugin{}
	_ framework.ZoneEquivalenceAware = &Plugin{}
)

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// EquivalentWithinClass implements framework.EquivalenceAware: the first
// pod of a class in class order has the least free capacity, so it is in
// use whenever another pod of the class is.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: the score
// reads only the pod's free capacity, which the class order ranks.
func (*Plugin) EquivalentWithinZone() bool { return true }

// Score implements framework.ScorePlugin.
// A pod where a vreplica with a cost would strand slots (Decision.Strands),
// or take a place that dearer sources' waiting vreplicas need
// (Decision.TakesHeavyRoom), counts as full for it: the node's next pod
// opens, and the pod stays for cheaper (dearer) vreplicas.
func (*Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	if d.Free(ordinal) < d.Cluster().Capacity() && !d.Strands(ordinal) && !d.TakesHeavyRoom(ordinal) {
		return framework.MaxScore, nil
	}
	return framework.MinScore, nil
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the score reads the pod's free
// capacity, which one holder class shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.ScoreInputs = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads the pod's
// free capacity and, through Decision.Strands and TakesHeavyRoom, its own
// use of resources.
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopePod, framework.ScopePod
}

// ScoreSummary implements framework.ScoreInputs: of the decision as a
// whole the score reads whether the heavy room is short
// (Decision.HeavyRoomShort), which the decision's own placements change.
func (*Plugin) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	return framework.ScoreSummary{d.HeavyRoomShort()}
}
