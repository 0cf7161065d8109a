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

// stateKey is where the plugin keeps its count of the holders in a Decision.
// It does not depend on the configuration, so several instances may share it.
const stateKey framework.StateKey = Name + "/holders"

// holders is the spread over the available holders as of the decision's
// change count changes.
type holders struct {
	changes int32
	stats   framework.DomainStats
}

// count summarises the source's vreplicas over its available holders, which
// the decision keeps current change by change.
func count(d *framework.Decision) framework.DomainStats {
	return d.HolderPodStats()
}

// Prepare implements framework.PreparePlugin: it counts the holders once.
func (*Plugin) Prepare(_ context.Context, d *framework.Decision) *framework.Status {
	d.Store(stateKey, &holders{changes: d.Changed(), stats: count(d)})
	return nil
}

// Changed implements framework.ChangeObserver: it recounts after a removal.
func (*Plugin) Changed(d *framework.Decision, _ int32, _ int32) {
	if v, ok := d.Load(stateKey); ok {
		if h, ok := v.(*holders); ok {
			h.changes, h.stats = d.Changed(), count(d)
		}
	}
}

// stats returns the count kept in d when it is current, and counts afresh
// otherwise (Score called without Prepare, as in tests).
func stats(d *framework.Decision) framework.DomainStats {
	if v, ok := d.Load(stateKey); ok {
		if h, ok := v.(*holders); ok && h.changes == d.Changed() {
			return h.stats
		}
	}
	return count(d)
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
