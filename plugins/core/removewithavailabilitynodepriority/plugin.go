package removewithavailabilitynodepriority

import (
	"context"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/internal/removal"
)

// Spec registers the plugin.
var Spec = framework.Spec[Args]{
	Name:     Name,
	Kinds:    framework.KindScore,
	Modes:    framework.ForRemove,
	Defaults: SetDefaults,
	Validate: Validate,
	New:      framework.NewFunc(New),
}

// Plugin is the RemoveWithAvailabilityNodePriority score plugin. It holds only
// its configuration and is safe for concurrent decisions.
type Plugin struct {
	maxSkew int32
}

var _ framework.ScorePlugin = &Plugin{}

// New builds the plugin from args (nil means all defaults), defaulting and
// validating them again so that embedders bypassing the registry get the same
// checks.
func New(_ context.Context, args *Args) (*Plugin, error) {
	a, err := framework.DefaultedArgs(Name, args, SetDefaults, Validate)
	if err != nil {
		return nil, err
	}
	return &Plugin{maxSkew: *a.MaxSkew}, nil
}

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// Score implements framework.ScorePlugin.
func (pl *Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return removal.Nodes.Score(d, ordinal, pl.maxSkew), nil
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the score reads the source's count
// on the pod's node, the nodes' summary and whether the pod is a candidate,
// which one holder class shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.ScoreInputs = &Plugin{}

// ScoreReads implements framework.ScoreInputs (removal.Domain.ScoreReads).
func (*Plugin) ScoreReads() (scope, reach framework.Scope) { return removal.Nodes.ScoreReads() }

// ScoreSummary implements framework.ScoreInputs (removal.Domain.ScoreSummary).
func (*Plugin) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	return removal.Nodes.ScoreSummary(d)
}
