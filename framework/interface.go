package framework

import "context"

const (
	// MaxScore is the highest score a score plugin may return.
	MaxScore int64 = 100
	// MinScore is the lowest score a score plugin may return.
	MinScore int64 = 0
	// MaxWeight and MinWeight bound a score plugin's configured weight.
	MaxWeight int32 = 10
	MinWeight int32 = 0
	// DefaultWeight is the weight of a score plugin configured without one.
	DefaultWeight int32 = 1
)

// Mode says whether a decision places vreplicas or removes them.
type Mode int

const (
	// Place adds vreplicas (scheduler profile). Ties go to the lowest
	// ordinal.
	Place Mode = iota
	// Remove takes vreplicas away (descheduler profile). Candidates are the
	// pods holding the source; a higher score means "remove from here
	// first". Ties go to the highest ordinal.
	Remove
)

func (m Mode) String() string {
	if m == Remove {
		return "remove"
	}
	return "place"
}

// Plugin is the base of every plugin.
type Plugin interface {
	// Name is the plugin's registered name; every plugin package declares
	// it as const Name.
	Name() string
}

// FilterPlugin rejects pods that cannot take the next vreplica (placing) or
// must not lose one (removing).
type FilterPlugin interface {
	Plugin
	// Filter returns nil when the pod passes, or an Unschedulable status
	// with the reason it does not. It must not modify d.
	Filter(ctx context.Context, d *Decision, ordinal int32) *Status
}

// ScorePlugin ranks the pods that passed every filter.
type ScorePlugin interface {
	Plugin
	// Score returns the pod's score in [MinScore, MaxScore], higher being
	// better (for Remove: better to remove from). A score out of range is
	// an error naming the plugin. It must not modify d.
	Score(ctx context.Context, d *Decision, ordinal int32) (int64, *Status)
}

// ScoreNormalizer is implemented by a score plugin whose raw scores only mean
// something relative to the other candidates. NormalizeScores is called once
// per vreplica with every feasible candidate's raw score and must rewrite
// them into [MinScore, MaxScore]. A profile with a normalizing plugin is
// always evaluated pod by pod (see EquivalenceAware).
type ScoreNormalizer interface {
	NormalizeScores(ctx context.Context, d *Decision, scores []PodScore) *Status
}

// PodScore is one candidate's score.
type PodScore struct {
	Ordinal int32
	Score   int64
}

// PreparePlugin computes once per decision what Filter and Score read, storing
// it in the decision (Decision.Store). A Skip status leaves the plugin out of
// this decision.
type PreparePlugin interface {
	Plugin
	Prepare(ctx context.Context, d *Decision) *Status
}

// ChangeObserver is told after the runtime applies each change (delta is +1
// when placing, -1 when removing), so that state built by Prepare stays
// current without recounting. The Decision's own spread is already updated.
type ChangeObserver interface {
	Plugin
	Changed(d *Decision, ordinal int32, delta int32)
}

// EquivalenceAware lets the runtime evaluate equivalent candidates once.
//
// When placing, two candidate pods are of the same class when they are on the
// same node, both have free capacity, and neither holds any vreplica of the
// source. The class order puts the pod with less free capacity first, and of
// two with the same, the lower ordinal (the runtime breaks ties between
// equal totals the same way: best fit, then lowest ordinal). A plugin
// returning true promises that for two pods of one class its Filter gives
// the same result, and the pod first in class order never scores below the
// other. If every filter and score plugin of a profile promises this, and
// none normalizes, the runtime evaluates only the first pod of each class,
// which is the pod it would have picked from that class anyway; the result is
// identical to evaluating every pod, only faster. Pods without free capacity
// are then skipped outright (PodFitsResources, which every scheduler profile
// contains, would reject them).
//
// Explanations always evaluate every candidate.
type EquivalenceAware interface {
	EquivalentWithinClass() bool
}

// ZoneEquivalenceAware widens EquivalenceAware's classes from a node to a
// zone, for the nodes the source does not use yet.
//
// When placing, two candidate pods are of the same zone class when they are
// in the same zone, both have free capacity, and the source holds no
// vreplica on either's node (so on neither pod). The class order is
// EquivalenceAware's. A plugin returning true promises, for two pods of one
// zone class, what EquivalenceAware promises within a node: the same Filter
// result, and the pod first in class order never scoring below the other.
// A plugin that reads only the source's counts per pod, node and zone, the
// zones' and nodes' aggregates, and a pod's free capacity and ordinal in a
// way that favours fuller pods, then lower ordinals, keeps it. If every
// filter and score plugin of a grouped profile promises it and the cluster
// is a ZoneFreeIndex, the runtime evaluates per step one pod per zone
// instead of one per node, so a decision costs about the same on 12 nodes
// as on 1,200.
type ZoneEquivalenceAware interface {
	EquivalentWithinZone() bool
}

// HolderEquivalenceAware lets the runtime evaluate equivalent holders once,
// so that a step costs about the nodes times the distinct counts the source
// holds on them rather than every pod it holds.
//
// Two pods holding the source are of the same holder class when they hold
// the same number of its vreplicas, are on the same node (and zone), and
// both or neither are known to the cluster and candidates; when placing,
// they must also have the same free capacity. The class order puts the
// lowest ordinal first when placing and the highest when removing (the
// runtime breaks ties between equal totals the same way). A plugin
// returning true promises that for two holders of one class its Filter
// gives the same result, and the holder first in class order never scores
// below the other: a plugin that reads only the source's counts per pod,
// node and zone, their summaries, where the pod is and whether it is a
// candidate, its free capacity, and the ordinal in a way that favours the
// class order, keeps it; one that reads a pod's resources does not. If
// every filter and score plugin of a profile promises it, and none
// normalizes, the runtime evaluates only the first holder of each class,
// which is the holder it would have picked from that class anyway: when
// removing, always; when placing, on the grouped path (EquivalenceAware);
// in both, once a step may choose 32 holders or more (below that,
// evaluating each costs less than keeping the classes).
// The result is identical to evaluating every holder. Explanations always
// evaluate every holder.
type HolderEquivalenceAware interface {
	EquivalentHolders() bool
}
