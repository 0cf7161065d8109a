package framework

// FilterInputs lets the runtime keep a filter plugin's verdicts from one
// step of a Run to the next and filter again only the candidates whose
// inputs changed, as ScoreInputs does for scores.
//
// FilterReads returns reach: whose state (the source's counts, the pods'
// free capacity, what the plugin's ChangeObserver keeps) the verdict on a
// candidate reads: the pod's own (ScopePod), that of the pods on its node
// (ScopeNode) or in its zone (ScopeZone). FilterSummary returns everything
// else the verdict reads of the decision at this step (a summary over the
// pods or zones, the number of pods the source spans), reduced to what the
// verdicts depend on; it is called once per step, before the filters run.
// Its meaning is the plugin's; the runtime only compares two of them.
//
// A plugin returning them promises that whether Filter passes a candidate,
// at any step of a Run, is a function of its FilterSummary, of the cluster
// (which does not change during a decision), of the candidate pod and of
// the state of the pods in its reach. The runtime then keeps each verdict
// per candidate pod and runs Filter again only when the summary differs
// from the one the verdict was reached under, or when a change since was
// applied to a pod in the candidate's reach: the candidates it passes are
// the ones Filter would pass, so the winner is the same. A kept rejection
// is the Status Filter returned then, reasons unread (the runtime keeps
// verdicts only where no one reads them: explanations, and the reasons a
// Run gives when nothing passes, filter again). Errors are never kept. A
// Run keeps verdicts under the same condition as scores (ScoreInputs: from
// scoreCacheMin vreplicas); the filters that do not implement this, or
// return a scope the runtime does not know, filter every candidate at
// every step.
type FilterInputs interface {
	FilterReads() (reach Scope)
	FilterSummary(d *Decision) ScoreSummary
}
