package removewithhighestordinalpriority

import (
	"context"

	"github.com/vsched/vsched/framework"
)

// Spec registers the plugin. It takes no args.
var Spec = framework.Spec[framework.NoArgs]{
	Name:    Name,
	Aliases: []string{Alias},
	Kinds:   framework.KindScore,
	Modes:   framework.ForRemove,
	New:     framework.NoArgsNewFunc(New),
}

// Plugin is the RemoveWithHighestOrdinalPriority score plugin. It is
// stateless and safe for concurrent decisions.
type Plugin struct{}

var _ framework.ScorePlugin = &Plugin{}

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// Score implements framework.ScorePlugin.
func (*Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	r := int64(d.Cluster().Replicas())
	o := int64(ordinal)
	switch {
	case o < 0:
		return framework.MinScore, nil
	case r <= 1 || o >= r-1:
		return framework.MaxScore, nil
	}
	return framework.MaxScore * o / (r - 1), nil
}

// EquivalentHolders implements framework.HolderEquivalenceAware: of two holders of one holder
// class (removing) the higher ordinal scores at least as high.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.ScoreInputs = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads the pod's
// ordinal and the StatefulSet's replicas, neither of which a decision
// changes.
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopePod, framework.ScopePod
}

// ScoreSummary implements framework.ScoreInputs: nothing of the decision.
func (*Plugin) ScoreSummary(*framework.Decision) framework.ScoreSummary {
	return framework.ScoreSummary{}
}
