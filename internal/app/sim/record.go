package sim

import (
	"maps"
	"slices"
	"sort"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

type podInfo struct {
	exists   bool
	name     string
	node     string
	zone     string
	draining bool
	beyond   bool
}

// record builds the step's result.
func (sim *simulation) record(st *Step, before map[string]vsched.VPod, notes []string) (*StepResult, error) {
	after, err := sim.sourcesNow()
	if err != nil {
		return nil, err
	}
	sr := &StepResult{
		Name:       st.Title(),
		Action:     st.Describe(),
		Clock:      sim.cluster.Clock().Since(sim.start).String(),
		Replicas:   sim.cluster.Replicas(),
		Placements: map[string][]vsched.Placement{},
		Pending:    map[string]int32{},
		Notes:      notes,
		Metrics:    Metrics{Sources: map[string]SourceMetrics{}},
	}
	nodeStatus, err := sim.recordNodes(sr)
	if err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(after))
	used := map[int32]int32{}
	for _, k := range keys {
		for _, p := range after[k].GetPlacements() {
			if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil && p.VReplicas > 0 {
				used[ord] += p.VReplicas
			}
		}
	}
	podAt, dom := sim.recordPods(sr, used, nodeStatus)
	for _, k := range keys {
		recordSource(sr, k, after[k], before, podAt, dom)
	}
	capacity := sim.cluster.Capacity()
	sr.Metrics.LowerBound = int((sr.Metrics.VReplicas + int64(capacity) - 1) / int64(capacity))
	sim.recordResources(sr, after)
	return sr, nil
}

// recordNodes records the nodes and returns each one's status.
func (sim *simulation) recordNodes(sr *StepResult) (map[string]string, error) {
	nodeStatus := map[string]string{}
	for _, n := range sim.cluster.Nodes() {
		node, err := sim.cluster.Node(n.Name)
		if err != nil {
			return nil, err
		}
		status := NodeReady
		switch schedulable, unavailable, _ := state.NodeAvailability(node); {
		case unavailable:
			status = NodeNotReady
		case !schedulable:
			status = NodeCordoned
		}
		nodeStatus[n.Name] = status
		sr.Nodes = append(sr.Nodes, NodeState{Name: n.Name, Zone: n.Zone, Status: status})
	}
	return nodeStatus, nil
}

// domains are the nodes and zones a source's skews are measured over.
type domains struct {
	healthyNode, healthyZone map[string]bool
	// roomZone: healthy zones with a candidate pod that has room;
	// anyZone: every zone with a node, failed or not.
	roomZone, anyZone map[string]bool
}

// podsNow returns the pods as the scheduler sees them, by ordinal.
func (sim *simulation) podsNow(replicas int32) []podInfo {
	s := sim.sched.Snapshot()
	pods := make([]podInfo, s.NumPods())
	for ord := range s.NumPods() {
		p := podInfo{name: vsched.PodName(sim.cluster.StatefulSetName(), ord), beyond: ord >= replicas, draining: s.Draining(ord)}
		if info, ok := s.Pod(ord); ok {
			p.exists, p.node, p.zone = true, info.Node, info.Zone
		}
		pods[ord] = p
	}
	return pods
}

// recordPods records every pod that exists or holds vreplicas (used, by
// ordinal) with its status, and returns where a pod is and the domains.
func (sim *simulation) recordPods(sr *StepResult, used map[int32]int32, nodeStatus map[string]string) (func(int32) podInfo, domains) {
	pods := sim.podsNow(sr.Replicas)
	capacity := sim.cluster.Capacity()
	ords := make([]int32, 0, len(pods))
	for ord := range pods {
		if pods[ord].exists || used[int32(ord)] > 0 {
			ords = append(ords, int32(ord))
		}
	}
	for ord := range used {
		if int(ord) >= len(pods) {
			ords = append(ords, ord)
		}
	}
	sort.Slice(ords, func(i, j int) bool { return ords[i] < ords[j] })
	podAt := func(ord int32) podInfo {
		if int(ord) < len(pods) {
			return pods[ord]
		}
		return podInfo{name: vsched.PodName(sim.cluster.StatefulSetName(), ord), beyond: true}
	}
	dom := domains{healthyNode: map[string]bool{}, healthyZone: map[string]bool{}, roomZone: map[string]bool{}, anyZone: map[string]bool{}}
	for _, n := range sr.Nodes {
		if n.Zone != "" {
			dom.anyZone[n.Zone] = true
		}
	}
	for _, ord := range ords {
		p := podAt(ord)
		status := podStatus(p, nodeStatus)
		if p.exists && !p.beyond && p.node != "" && nodeStatus[p.node] == NodeReady {
			dom.healthyNode[p.node] = true
			if p.zone != "" {
				dom.healthyZone[p.zone] = true
			}
		}
		if status == PodOK && p.zone != "" && capacity-used[ord] > 0 {
			dom.roomZone[p.zone] = true
		}
		sr.Pods = append(sr.Pods, PodState{Name: p.name, Node: p.node, Zone: p.zone, Status: status, Used: used[ord], Free: capacity - used[ord]})
		if used[ord] > 0 {
			sr.Metrics.PodsUsed++
		}
		if !p.beyond && (!p.exists || p.node == "" || nodeStatus[p.node] == NodeNotReady) {
			sr.Metrics.Unavailable += int64(used[ord])
		}
	}
	return podAt, dom
}

func podStatus(p podInfo, nodeStatus map[string]string) string {
	switch {
	case !p.exists:
		return PodGone
	case p.beyond:
		return PodScaledOut
	case p.node == "":
		return PodUnbound
	case nodeStatus[p.node] == NodeNotReady:
		return PodNotReady
	case nodeStatus[p.node] == NodeCordoned:
		return PodCordoned
	case p.draining:
		return PodDraining
	}
	return PodOK
}

// recordSource records a source's placements, pending vreplicas and
// metrics.
func recordSource(sr *StepResult, k string, v vsched.VPod, before map[string]vsched.VPod, podAt func(int32) podInfo, dom domains) {
	ps := make([]vsched.Placement, 0, len(v.GetPlacements()))
	onNode := map[string]int32{}
	onZone := map[string]int32{}
	for _, p := range v.GetPlacements() {
		if p.VReplicas <= 0 {
			continue
		}
		out := vsched.Placement{PodName: p.PodName, VReplicas: p.VReplicas}
		if ord, err := vsched.OrdinalFromPodName(p.PodName); err == nil {
			info := podAt(ord)
			out.NodeName, out.ZoneName = info.node, info.zone
		}
		ps = append(ps, out)
		if dom.healthyNode[out.NodeName] {
			onNode[out.NodeName] += p.VReplicas
			onZone[out.ZoneName] += p.VReplicas
		}
	}
	vsched.SortPlacements(ps)
	sr.Placements[k] = ps
	want := v.GetVReplicas()
	pending := max(want-vsched.TotalVReplicas(ps), 0)
	sr.Pending[k] = pending
	m := SourceMetrics{
		VReplicas: want,
		ZoneSkew:  skew(onZone, dom.healthyZone),
		NodeSkew:  skew(onNode, dom.healthyNode),
		// A failed zone runs none of the source: counted, it shows
		// what the failure took.
		ZoneSkewAll:  skew(onZone, dom.anyZone),
		ZoneSkewRoom: skew(onZone, dom.roomZone),
	}
	if b, ok := before[k]; ok {
		m.Moved = moved(b.GetPlacements(), v.GetPlacements())
	}
	sr.Metrics.Sources[k] = m
	sr.Metrics.Moved += m.Moved
	sr.Metrics.VReplicas += int64(want)
	sr.Metrics.Pending += int64(pending)
}

// skew is max - min of counts over domains (0 for none).
func skew(counts map[string]int32, domains map[string]bool) int32 {
	first := true
	var lo, hi int32
	for d := range domains {
		n := counts[d]
		if first {
			lo, hi, first = n, n, false
			continue
		}
		lo, hi = min(lo, n), max(hi, n)
	}
	return hi - lo
}

// moved is how many vreplicas changed pod between two placements of one
// source: the smaller of what left pods and what arrived.
func moved(before, after []vsched.Placement) int32 {
	delta := map[string]int32{}
	for _, p := range before {
		delta[p.PodName] -= p.VReplicas
	}
	for _, p := range after {
		delta[p.PodName] += p.VReplicas
	}
	var left, arrived int32
	for _, d := range delta {
		if d < 0 {
			left -= d
		} else {
			arrived += d
		}
	}
	return min(left, arrived)
}
