package lowestordinalpriority

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

// Plugin is the LowestOrdinalPriority score plugin. It is stateless and safe
// for concurrent decisions.
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

// EquivalentWithinClass implements framework.EquivalenceAware: of two pods
// of a class (neither holds the source), the first in class order is in use
// whenever it is fuller (and scores MaxScore), and has the lower ordinal
// when both are as full.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: on the
// nodes the source does not use, what the plugin reads of a pod is its zone's
// and the source's counts, and of the pod itself what EquivalentWithinClass
// already orders.
func (*Plugin) EquivalentWithinZone() bool { return true }

// Score implements framework.ScorePlugin.
func (*Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	c := d.Cluster()
	r := int64(c.Replicas())
	if r <= 1 || (int64(ordinal) < r && d.Free(ordinal)+d.OnPod(ordinal) < c.Capacity()) {
		return framework.MaxScore, nil
	}
	sc := framework.MaxScore * (r - 1 - int64(ordinal)) / (r - 1)
	return max(framework.MinScore, min(framework.MaxScore, sc)), nil
}

// EquivalentHolders implements framework.HolderEquivalenceAware: of two holders of one holder class
// (the same count and free capacity) the lower ordinal scores at least as
// high.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.ScoreInputs = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads the pod's
// ordinal, count and free capacity.
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopePod, framework.ScopePod
}

// ScoreSummary implements framework.ScoreInputs: the score reads nothing
// of the decision as a whole.
func (*Plugin) ScoreSummary(*framework.Decision) framework.ScoreSummary {
	return framework.ScoreSummary{}
}
