package removal

import "github.com/vsched/vsched/framework"

// Domain is what a descheduler plugin spreads the source over, nodes or
// zones, read through the framework's per-domain views.
type Domain struct {
	reach framework.Scope // ScopeNode or ScopeZone
}

// Nodes and Zones are the domains of RemoveWithAvailabilityNodePriority and
// RemoveWithAvailabilityZonePriority.
var (
	Nodes = Domain{reach: framework.ScopeNode}
	Zones = Domain{reach: framework.ScopeZone}
)

// stats is the summary over the counted domains.
func (dm Domain) stats(d *framework.Decision) framework.DomainStats {
	if dm.reach == framework.ScopeNode {
		return d.NodeStats()
	}
	return d.ZoneStats()
}

// Score ranks removing one vreplica from the pod with the ordinal by its
// domain's share of the source (Score over the counted domains). A pod
// holding none of the source scores MinScore: there is nothing to remove.
// One that is no candidate, or lies outside every counted domain (a failed
// or cordoned node or zone, no label), scores MaxScore: its vreplicas are to
// leave first.
//
// It runs for every holder class the step evaluates, removal after
// removal: it reads where the pod is once, and no domain list. A
// candidate's node and zone are counted by definition
// (Cluster.SchedulableNodes and SchedulableZones list the domains that
// host a candidate pod), so only a candidate without a zone (no label) is
// outside them.
func (dm Domain) Score(d *framework.Decision, ordinal, maxSkew int32) int64 {
	if d.OnPod(ordinal) <= 0 {
		return framework.MinScore
	}
	// Not Cluster.Pod: a PodInfo carries names the score never reads. A
	// candidate is bound to a node; any other pod, an unknown one
	// included, is not one.
	node := d.CandidateNode(ordinal)
	if node < 0 {
		return framework.MaxScore
	}
	if dm.reach == framework.ScopeNode {
		return Score(d.NodeStats(), d.OnNode(node), maxSkew)
	}
	_, zone, _ := d.PodDomains(ordinal)
	if zone < 0 {
		return framework.MaxScore
	}
	return Score(d.ZoneStats(), d.OnZone(zone), maxSkew)
}

// ScoreReads is what Score reads, for framework.ScoreInputs: of the pod,
// its domain and whether it is a candidate (and whether it holds the
// source, which every pod the runtime asks about when removing does), and
// of the decision the source's count in the pod's domain.
func (dm Domain) ScoreReads() (scope, reach framework.Scope) {
	return dm.reach, dm.reach
}

// ScoreSummary is what Score reads of the decision as a whole, for
// framework.ScoreInputs: the domains' summary, as far as Score reads it.
func (dm Domain) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	k := Key(dm.stats(d))
	return framework.ScoreSummary{k[0], k[1], k[2], k[3]}
}
