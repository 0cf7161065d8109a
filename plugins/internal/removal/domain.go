package removal

import "github.com/vsched/vsched/framework"

// Domain is what a descheduler plugin spreads the source over, nodes or
// zones, read through the framework's per-domain views.
type Domain struct {
	of      func(framework.PodInfo) int32
	counted func(framework.Cluster) []int32
	stats   func(*framework.Decision) framework.DomainStats
	on      func(*framework.Decision, int32) int32
}

// Nodes and Zones are the domains of RemoveWithAvailabilityNodePriority and
// RemoveWithAvailabilityZonePriority.
var (
	Nodes = Domain{
		of:      func(p framework.PodInfo) int32 { return p.NodeIndex },
		counted: framework.Cluster.SchedulableNodes,
		stats:   (*framework.Decision).NodeStats,
		on:      (*framework.Decision).OnNode,
	}
	Zones = Domain{
		of:      func(p framework.PodInfo) int32 { return p.ZoneIndex },
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
	c := d.Cluster()
	info, ok := c.Pod(ordinal)
	if !ok || !info.Candidate {
		return framework.MaxScore
	}
	index := dm.of(info)
	if index < 0 || !Contains(dm.counted(c), index) {
		return framework.MaxScore
	}
	return Score(dm.stats(d), dm.on(d, index), maxSkew)
}
