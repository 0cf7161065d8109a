package removal

import "github.com/vsched/vsched/framework"

// Domain is what a descheduler plugin spreads the source over, nodes or
// zones, read through the framework's per-domain views.
type Domain struct {
	reach   framework.Scope
	of      func(node, zone int32) int32
	counted func(framework.Cluster) []int32
	stats   func(*framework.Decision) framework.DomainStats
	on      func(*framework.Decision, int32) int32
}

// Nodes and Zones are the domains of RemoveWithAvailabilityNodePriority and
// RemoveWithAvailabilityZonePriority.
var (
	Nodes = Domain{
		reach:   framework.ScopeNode,
		of:      func(node, _ int32) int32 { return node },
		counted: framework.Cluster.SchedulableNodes,
		stats:   (*framework.Decision).NodeStats,
		on:      (*framework.Decision).OnNode,
	}
	Zones = Domain{
		reach:   framework.ScopeZone,
		of:      func(_, zone int32) int32 { return zone },
		counted: framework.Cluster.SchedulableZones,
		stats:   (*framework.Decision).ZoneStats,
		on:      (*framework.Decision).OnZone,
	}
)

// Score ranks removing one vreplica from the pod with the ordinal by its
// domain's share of the source (Score over the counted domains). A pod
// holding none of the source scores MinScore: there is nothing to remove.
// One that is no candidate, or lies outside every counted domain (a failed
// or cordoned node or zone, no label), scores MaxScore: its vreplicas are to
// leave first.
func (dm Domain) Score(d *framework.Decision, ordinal, maxSkew int32) int64 {
	if d.OnPod(ordinal) <= 0 {
		return framework.MinScore
	}
	// Not Cluster.Pod: this runs for every holder at every step, and a
	// PodInfo carries names the score never reads.
	// A candidate is bound to a node: CandidateNode is -1 for any other
	// pod, an unknown one included.
	if d.CandidateNode(ordinal) < 0 {
		return framework.MaxScore
	}
	node, zone, _ := d.PodDomains(ordinal)
	index := dm.of(node, zone)
	if index < 0 || !Contains(dm.counted(d.Cluster()), index) {
		return framework.MaxScore
	}
	return Score(dm.stats(d), dm.on(d, index), maxSkew)
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
