package framework

import "context"

// SummaryScorer lets a ScoreInputs plugin score from the summary it has
// just returned for the step, rather than reading the decision's
// summaries again at every call. A step of a large Run scores again a
// dozen candidates or more, and each call re-read the spread summaries
// (NodeStats, NodeRoomStats, ZoneStats, FeasibleZoneStats) through
// several layers and combined them again as ScoreSummary had, about 400
// instructions of the 1,000-vreplica goal's 8,000 per step (issue 21).
//
// ScoreSummarized is called by a Run that keeps the plugin's scores, with
// sum the value ScoreSummary returned for the decision at this step. It
// must return what Score returns for the same decision and ordinal; a
// plugin whose summary omits something Score reads (ScoreInputs) reads
// it from d as Score does.
type SummaryScorer interface {
	ScoreInputs
	ScoreSummarized(ctx context.Context, d *Decision, ordinal int32, sum ScoreSummary) (int64, *Status)
}

// SummaryFilter is SummaryScorer for a FilterInputs filter: a Run that
// keeps the filter's verdicts calls FilterSummarized, with sum the value
// FilterSummary returned for the decision at this step, whenever it
// filters a candidate again. It must return a verdict (passed or not, and
// the code) equal to Filter's for the same decision and ordinal; the
// reasons are not read (Decision.ReasonsWanted is false then). A zone
// spread's filter is asked about every candidate of the zone a step
// changed, a dozen times a step on a large source (issue 21).
type SummaryFilter interface {
	FilterInputs
	FilterSummarized(ctx context.Context, d *Decision, ordinal int32, sum ScoreSummary) *Status
}
