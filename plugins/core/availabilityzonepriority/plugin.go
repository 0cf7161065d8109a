package availabilityzonepriority

import (
	"context"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/internal/spread"
)

// Spec registers the plugin.
var Spec = framework.Spec[Args]{
	Name:     Name,
	Kinds:    framework.KindScore,
	Modes:    framework.ForPlace,
	Defaults: SetDefaults,
	Validate: Validate,
	New:      framework.NewFunc(New),
}

// Plugin is the AvailabilityZonePriority score plugin. It holds only its
// configuration and is safe for concurrent decisions.
type Plugin struct {
	maxSkew int32
}

var (
	_ framework.ScorePlugin          = &Plugin{}
	_ framework.EquivalenceAware     = &Plugin{}
	_ framework.ZoneEquivalenceAware = &Plugin{}
	_ framework.ZoneSpreader         = &Plugin{}
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

// EquivalentWithinClass implements framework.EquivalenceAware: pods of one
// class share a node, hence a zone, and the score depends on nothing else.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: on the
// nodes the source does not use, what the plugin reads of a pod is its zone's
// and the source's counts, and of the pod itself what EquivalentWithinClass
// already orders.
func (*Plugin) EquivalentWithinZone() bool { return true }

// SpreadsOverZones implements framework.ZoneSpreader: the autoscaler sizes
// the StatefulSet in multiples of the zones for profiles using the plugin.
func (*Plugin) SpreadsOverZones() bool { return true }

// Score implements framework.ScorePlugin.
func (pl *Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return pl.score(d, ordinal, spread.Counted(d.ZoneStats(), d.FeasibleZoneStats(), pl.maxSkew))
}

// ScoreSummarized implements framework.SummaryScorer: the zones counted
// are those the step's summary holds.
func (pl *Plugin) ScoreSummarized(_ context.Context, d *framework.Decision, ordinal int32, sum framework.ScoreSummary) (int64, *framework.Status) {
	return pl.score(d, ordinal, spread.FromSummary(&sum, 0))
}

// score is the pod's score against the zones counted.
func (pl *Plugin) score(d *framework.Decision, ordinal int32, stats framework.DomainStats) (int64, *framework.Status) {
	if stats.Domains == 0 {
		return framework.MaxScore, nil
	}
	_, zone, ok := d.PodDomains(ordinal)
	if !ok || zone < 0 {
		return framework.MinScore, nil
	}
	return spread.Score(stats, d.OnZone(zone), pl.maxSkew), nil
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the score reads the source's count
// in the pod's zone and the zones' summaries, which one holder class shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.SummaryScorer = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads of a pod
// only its zone, and of the decision the source's count in that zone and
// the summary ScoreSummary returns.
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopeZone, framework.ScopeZone
}

// ScoreSummary implements framework.ScoreInputs: the zones counted, as far
// as spread.Score reads them.
func (pl *Plugin) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	return spread.Summary(spread.Counted(d.ZoneStats(), d.FeasibleZoneStats(), pl.maxSkew))
}
