package availabilitynodepriority

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

// Plugin is the AvailabilityNodePriority score plugin. It holds only its
// configuration and is safe for concurrent decisions.
type Plugin struct {
	maxSkew int32
}

var (
	_ framework.ScorePlugin          = &Plugin{}
	_ framework.EquivalenceAware     = &Plugin{}
	_ framework.ZoneEquivalenceAware = &Plugin{}
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
// class share a node, and the score depends on nothing else.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: on the
// nodes the source does not use, what the plugin reads of a pod is its zone's
// and the source's counts, and of the pod itself what EquivalentWithinClass
// already orders.
func (*Plugin) EquivalentWithinZone() bool { return true }

// LocalPenalty is taken off the score of a node ranked against the other
// nodes of its zone only (see the package doc): such a node scores in
// [spread.WithinFloor - LocalPenalty, MaxScore - LocalPenalty].
const LocalPenalty int64 = 5

// Score implements framework.ScorePlugin.
func (pl *Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	return pl.score(d, ordinal, spread.Counted(d.NodeStats(), d.NodeRoomStats(), pl.maxSkew))
}

// ScoreSummarized implements framework.SummaryScorer: the nodes counted
// are those the step's summary holds; the nodes with room in the pod's
// zone are read as Score reads them.
func (pl *Plugin) ScoreSummarized(_ context.Context, d *framework.Decision, ordinal int32, sum framework.ScoreSummary) (int64, *framework.Status) {
	return pl.score(d, ordinal, spread.FromSummary(&sum, 0))
}

// score is the pod's score against the nodes counted.
func (pl *Plugin) score(d *framework.Decision, ordinal int32, stats framework.DomainStats) (int64, *framework.Status) {
	if stats.Domains == 0 {
		return framework.MaxScore, nil
	}
	node, zone, ok := d.PodDomains(ordinal)
	if !ok || node < 0 {
		return framework.MinScore, nil
	}
	c := d.OnNode(node)
	if spread.Allowed(stats, c, pl.maxSkew) || zone < 0 {
		return spread.Score(stats, c, pl.maxSkew), nil
	}
	// No node of the zone may be allowed over all nodes (a small zone
	// holding its share of the source spreads it over fewer nodes): rank
	// the zone's nodes among themselves, so that a zone the zone spread
	// chose still gets its least loaded node.
	local := d.NodeRoomStatsInZone(zone)
	if local.Domains == 0 || spread.Allowed(stats, local.Min, pl.maxSkew) || !spread.Allowed(local, c, pl.maxSkew) {
		return spread.Score(stats, c, pl.maxSkew), nil
	}
	return spread.Score(local, c, pl.maxSkew) - LocalPenalty, nil
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the score reads the source's count
// on the pod's node and zone and their summaries, which one holder class
// shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.SummaryScorer = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads of a pod
// only its node (and the node's zone), and of the decision the source's
// count on that node, the nodes with room in its zone, and the summary
// ScoreSummary returns.
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopeNode, framework.ScopeZone
}

// ScoreSummary implements framework.ScoreInputs: the nodes counted, as far
// as spread.Allowed and spread.Score read them.
func (pl *Plugin) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	return spread.Summary(spread.Counted(d.NodeStats(), d.NodeRoomStats(), pl.maxSkew))
}
