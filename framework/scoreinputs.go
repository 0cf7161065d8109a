package framework

// Scope names a domain of a pod: the pod itself, its node or its zone (the
// node and zone indexes of Decision.PodDomains; -1, unbound or without a
// zone, is a domain of its own).
type Scope uint8

const (
	// ScopePod is the pod alone.
	ScopePod Scope = iota
	// ScopeNode is the pods on the pod's node.
	ScopeNode
	// ScopeZone is the pods in the pod's zone.
	ScopeZone
)

// ScoreSummary is what a score plugin reads of the decision as a whole
// at one step, reduced to the values its scores depend on (see
// ScoreInputs). Its meaning is the plugin's; the runtime only compares two
// of them.
type ScoreSummary [8]int64

// ScoreInputs lets the runtime keep a score plugin's scores from one step of
// a Run to the next and score again only the candidates whose inputs
// changed.
//
// ScoreReads returns two scopes. scope says what of the candidate pod its
// Score reads: ScopePod, the pod itself (its ordinal, its count, its free
// capacity); ScopeNode, only its node and whether it is a candidate
// (PodInfo.Candidate), so that the candidates of one node score the same,
// and so do its other pods; ScopeZone, the same with its zone for its node.
// (When removing, the runtime's candidates all hold the source.) reach says whose state (the
// source's counts, the pods' free capacity, what the plugin's
// ChangeObserver keeps) the score reads: the pod's own (ScopePod), that of
// the pods on its node (ScopeNode) or in its zone (ScopeZone). A reach
// narrower than the scope is taken as the scope. ScoreSummary returns
// everything else the score reads of the decision at this step (the
// summaries over pods, nodes and zones, the feasible zones, whether a pod
// cap is reached), reduced to what the scores depend on: it is called once
// per step, after the filters, with the step's feasible candidates set.
//
// A plugin returning them promises that Score, at any step of a Run, is a
// function of its ScoreSummary, of the cluster (which does not change during
// a decision), of the candidate's scope and of the state of the pods in the
// candidate's reach. The runtime then keeps each score it computes, per
// candidate (per node, per zone, by scope), and scores again only when the
// summary differs from the one it was computed under, or when a change since
// was applied to a pod in the candidate's reach: the scores it sums are the
// ones Score would return, so the winner is the same, only found with fewer
// calls. A Run keeps scores once it changes scoreCacheMin vreplicas or more
// (a Run on cost classes, Profile.WithCosts, at any size), for the plugins
// without a ScoreNormalizer that implement this; the other
// plugins of the profile are scored as before. Explanations score every
// candidate.
type ScoreInputs interface {
	ScoreReads() (scope, reach Scope)
	ScoreSummary(d *Decision) ScoreSummary
}
