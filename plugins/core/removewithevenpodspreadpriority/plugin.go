package removewithevenpodspreadpriority

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

// Plugin is the RemoveWithEvenPodSpreadPriority score plugin. It holds only
// its configuration and is safe for concurrent decisions.
type Plugin struct {
	maxSkew int32
}

var (
	_ framework.ScorePlugin    = &Plugin{}
	_ framework.PreparePlugin  = &Plugin{}
	_ framework.ChangeObserver = &Plugin{}
)

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

// Prepare implements framework.PreparePlugin. The plugin keeps nothing:
// the decision keeps the holders' summary current change by change
// (Decision.HolderPodStats), so there is nothing to count up front. It
// stays so that configurations and embedders that call it keep working.
func (*Plugin) Prepare(context.Context, *framework.Decision) *framework.Status { return nil }

// Changed implements framework.ChangeObserver; as Prepare, it has nothing
// to do.
func (*Plugin) Changed(*framework.Decision, int32, int32) {}

// stats summarises the source's vreplicas over its available holders,
// which the decision keeps current: it was kept in the decision's state
// by Prepare and Changed, and the look-up of that state, at every score of
// every step, cost more than the summary it saved.
func stats(d *framework.Decision) framework.DomainStats {
	return d.HolderPodStats()
}

// Score implements framework.ScorePlugin.
func (pl *Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	c := d.OnPod(ordinal)
	if c <= 0 {
		return framework.MinScore, nil
	}
	if !d.Cluster().IsCandidate(ordinal) {
		return framework.MaxScore, nil
	}
	return removal.Score(stats(d), c, pl.maxSkew), nil
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the score reads the pod's count, the
// holders' summary and whether the pod is a candidate, which one removal
// class shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.ScoreInputs = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads the pod's
// count and candidacy, and the summary ScoreSummary returns.
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopePod, framework.ScopePod
}

// ScoreSummary implements framework.ScoreInputs: the holders' summary, as
// far as removal.Score reads it.
func (*Plugin) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	k := removal.Key(stats(d))
	return framework.ScoreSummary{k[0], k[1], k[2], k[3]}
}
