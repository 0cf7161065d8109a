package evenpodspread

import (
	"context"
	"fmt"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/internal/podlimit"
	"github.com/vsched/vsched/plugins/internal/spread"
)

// Spec registers the plugin.
var Spec = framework.Spec[Args]{
	Name:     Name,
	Kinds:    framework.KindFilter | framework.KindScore,
	Modes:    framework.ForPlace,
	Defaults: SetDefaults,
	Validate: Validate,
	New:      framework.NewFunc(New),
}

// Plugin is the EvenPodSpread filter and score plugin. It holds only its
// configuration and is safe for concurrent decisions.
type Plugin struct {
	maxSkew int32
}

var (
	_ framework.FilterPlugin         = &Plugin{}
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
// class all hold none of the source, and the plugin looks at nothing else
// about a pod.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: on the
// nodes the source does not use, what the plugin reads of a pod is its zone's
// and the source's counts, and of the pod itself what EquivalentWithinClass
// already orders.
func (*Plugin) EquivalentWithinZone() bool { return true }

// skewed is the rejection when its reasons will not be read.
var skewed = framework.NewStatus(framework.Unschedulable)

// Filter implements framework.FilterPlugin.
func (pl *Plugin) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	stats := podStats(d)
	c := d.OnPod(ordinal)
	if spread.Allowed(stats, c, pl.maxSkew) {
		return nil
	}
	if !d.ReasonsWanted() {
		return skewed
	}
	// The runtime only asks about candidates, but the source may still
	// hold vreplicas on a pod that no longer exists.
	name := fmt.Sprintf("with ordinal %d", ordinal)
	if info, ok := d.Cluster().Pod(ordinal); ok {
		name = info.Name
	}
	return framework.NewStatus(framework.Unschedulable, fmt.Sprintf(
		"pod %s holds %d of the source's vreplicas; one more would make the skew across pods %d, above MaxSkew %d",
		name, c, stats.SkewAfterAdd(c), pl.maxSkew))
}

// LocalPenalty is taken off the score of a pod ranked against the other
// pods of its node only (see the package doc).
const LocalPenalty int64 = 5

// Score implements framework.ScorePlugin.
func (pl *Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	capped := podlimit.Reached(d)
	return pl.score(d, ordinal, podStatsFor(d, capped), capped, 0, false)
}

// score is the pod's score against the pods counted (stats). When known,
// bound is the node spread's spread.Bound; otherwise it is read from d if
// needed.
func (pl *Plugin) score(d *framework.Decision, ordinal int32, stats framework.DomainStats, capped bool, bound int64, known bool) (int64, *framework.Status) {
	c := d.OnPod(ordinal)
	if spread.Allowed(stats, c, pl.maxSkew) || c == 0 || capped {
		// A pod holding none that is not allowed holds the fewest of its
		// node too: ranking the node's pods among themselves would not
		// change its place among them.
		return spread.Score(stats, c, pl.maxSkew), nil
	}
	// A node that holds more of the source than the node spread allows
	// (a node of a small zone, chosen by the zone spread) may have no pod
	// allowed over all pods: rank its pods among themselves, so it still
	// gets its least loaded pod. A node within the node spread gets no
	// such help: an emptier pod elsewhere is the better choice.
	node := d.CandidateNode(ordinal)
	if !known && node >= 0 {
		bound = pl.nodeBound(d)
	}
	if node < 0 || int64(d.OnNode(node)) <= bound {
		return spread.Score(stats, c, pl.maxSkew), nil
	}
	local := d.PodRoomStatsOnNode(node)
	if local.Domains == 0 || spread.Allowed(stats, local.Min, pl.maxSkew) || !spread.Allowed(local, c, pl.maxSkew) {
		return spread.Score(stats, c, pl.maxSkew), nil
	}
	return spread.Score(local, c, pl.maxSkew) - LocalPenalty, nil
}

// podStats summarises the source over the pods that can still take its
// vreplicas: the framework's eligible pods, or only the candidates holding
// it once a pod cap is reached (see package podlimit). The cap makes every
// other pod a domain the source can never even out with.
func podStats(d *framework.Decision) framework.DomainStats {
	return podStatsFor(d, podlimit.Reached(d))
}

// podStatsFor is podStats once it is known whether the cap is reached.
func podStatsFor(d *framework.Decision, capped bool) framework.DomainStats {
	if !capped {
		return d.PodStats()
	}
	return d.HolderPodStats()
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the verdict and the score read the
// pod's count and node and the summaries, which one holder class shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.ScoreInputs = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads the pod's
// count and node, and of the decision the source's count on that node, the
// node's pods with room, and the summaries ScoreSummary returns.
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopePod, framework.ScopeNode
}

// ScoreSummary implements framework.ScoreInputs: whether the pod cap is
// reached, the pods counted as far as spread.Allowed and spread.Score read
// them, and, only when some candidate can be ranked among its node's pods
// (see nodeBranch), the highest count on a node the node spread allows
// (spread.Bound). The node spread's Min and Max move about every other
// step on a dozen nodes; the bound, with MaxSkew 1 the Min, moves once
// per round of the nodes, and scores kept under it stay valid meanwhile
// (issue 21).
func (pl *Plugin) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	capped := podlimit.Reached(d)
	pods := podStatsFor(d, capped)
	k := spread.Key(pods)
	sum := framework.ScoreSummary{0, k[0], k[1], k[2]}
	if capped {
		sum[0] = 1
	} else if pl.nodeBranch(pods) {
		sum[4] = 1
		sum[5] = pl.nodeBound(d)
	}
	return sum
}

// nodeBound is the highest count the node spread allows on a node
// (spread.Bound over the nodes counted).
func (pl *Plugin) nodeBound(d *framework.Decision) int64 {
	return spread.Bound(spread.Counted(d.NodeStats(), d.NodeRoomStats(), pl.maxSkew), pl.maxSkew)
}

// nodeBranch reports whether, the cap not reached, some candidate can
// reach the node spread's test in score: a candidate holding c > 0 that
// the pods counted do not allow. Every candidate holding the source is
// counted in PodStats, so c is at most pods.Max, and Allowed is c <=
// spread.Bound.
func (pl *Plugin) nodeBranch(pods framework.DomainStats) bool {
	return pods.Domains > 0 && int64(pods.Max) > max(spread.Bound(pods, pl.maxSkew), 0)
}

var _ framework.SummaryScorer = &Plugin{}

// ScoreSummarized implements framework.SummaryScorer: the pods counted
// and the node spread's bound are the step's summary's.
func (pl *Plugin) ScoreSummarized(_ context.Context, d *framework.Decision, ordinal int32, sum framework.ScoreSummary) (int64, *framework.Status) {
	// Without the bound (sum[4] 0: no candidate should need it), score
	// reads it from d as Score does.
	return pl.score(d, ordinal, spread.FromSummary(&sum, 1), sum[0] == 1, sum[5], sum[4] == 1)
}

var _ framework.FilterInputs = &Plugin{}

// FilterReads implements framework.FilterInputs: the verdict reads the
// source's count on the pod.
func (*Plugin) FilterReads() framework.Scope { return framework.ScopePod }

// FilterSummary implements framework.FilterInputs: the highest count the
// pods counted (all eligible ones, or the holders once the pod cap is
// reached) allow on a pod (spread.Bound), all the verdict reads of them.
func (pl *Plugin) FilterSummary(d *framework.Decision) framework.ScoreSummary {
	return framework.ScoreSummary{spread.Bound(podStats(d), pl.maxSkew)}
}

var _ framework.SummaryFilter = &Plugin{}

// FilterSummarized implements framework.SummaryFilter: the verdict from
// the step's bound, without summarising the pods again.
func (pl *Plugin) FilterSummarized(ctx context.Context, d *framework.Decision, ordinal int32, sum framework.ScoreSummary) *framework.Status {
	if int64(d.OnPod(ordinal)) <= sum[0] {
		return nil
	}
	if d.ReasonsWanted() {
		return pl.Filter(ctx, d, ordinal)
	}
	return skewed
}
