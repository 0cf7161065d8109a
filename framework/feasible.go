package framework

// feasibleZones remembers, for the step the runtime is scoring, which
// candidates passed every filter, so that a zone spread priority can rank
// among the zones that can take the vreplica under the profile's hard rules
// (a hard pod spread can leave a zone with free capacity that takes
// nothing). The zones are summarised once per step, when first asked.
type feasibleZones struct {
	pods      []int32 // the step's feasible candidates (the runtime's slice)
	gen       uint64  // the decision's generation the step ran at
	inStep    bool
	step      uint64 // counts the steps, so a summary is never reused across two
	statsStep uint64
	stats     DomainStats
	mark      []bool
	// inRange is 1 once SchedulableZones is known to list only zones
	// below NumZones, 2 once known not to (0: not looked yet).
	inRange int8
}

// setFeasible records the step's feasible candidates; the runtime calls it
// between filtering and scoring.
func (d *Decision) setFeasible(pods []int32) {
	f := &d.feasible
	f.pods, f.gen, f.inStep = pods, d.gen, true
	f.step++
}

// endStep forgets the step's candidates once the runtime is done with them.
func (d *Decision) endStep() {
	d.feasible.pods, d.feasible.inStep = nil, false
}

// FeasibleZoneStats summarises the source's vreplicas over the counted zones
// (Cluster.SchedulableZones) that hold a candidate the runtime found
// feasible for the vreplica it is placing: every filter of the profile
// passed, so the zone can take the vreplica, where ZoneRoomStats only says
// it has free capacity. The two differ when a hard rule other than capacity
// (EvenPodSpread as a predicate, NoMaxResourceCount) rejects every pod with
// room in a zone. Outside the scoring of a Profile.Run step (a plugin's own
// tests) it is ZoneRoomStats.
//
// The runtime evaluates one candidate per class of equivalent pods, which
// passes the filters exactly when every pod of its class does, so the zones
// found are those of every feasible pod.
func (d *Decision) FeasibleZoneStats() DomainStats {
	f := &d.feasible
	if !f.inStep || f.gen != d.gen {
		return d.ZoneRoomStats()
	}
	if f.statsStep == f.step {
		return f.stats
	}
	n := len(d.onZone) // NumZones, without asking the cluster
	if cap(f.mark) < n {
		f.mark = make([]bool, n)
	}
	f.mark = f.mark[:n]
	clear(f.mark)
	// Once every zone is marked the rest of the candidates mark nothing
	// new: a step has one candidate per node or more, zones are few.
	marked := 0
	for _, ord := range f.pods {
		if z, ok := d.zoneOf(ord); ok && z >= 0 && int(z) < n && !f.mark[z] {
			f.mark[z] = true
			if marked++; marked == n {
				break
			}
		}
	}
	if marked == n && d.zonesInRange() {
		// Every zone holds a feasible candidate: the feasible zones are
		// the counted ones, summarised by ZoneStats (kept, on a large
		// decision) rather than walked.
		f.stats, f.statsStep = d.ZoneStats(), f.step
		return f.stats
	}
	var acc statsAcc
	for _, z := range d.cluster.SchedulableZones() {
		if z >= 0 && int(z) < n && f.mark[z] {
			acc.addN(d.OnZone(z), 1)
		}
	}
	f.stats, f.statsStep = acc.done(), f.step
	return f.stats
}

// zoneOf is PodDomains' zone: from place's memory when it holds the pod
// (the runtime placed every candidate it filtered), without the call.
func (d *Decision) zoneOf(ord int32) (int32, bool) {
	if pa := d.room.placeAt; ord >= 0 && int(ord) < len(pa) && pa[ord].set {
		return pa[ord].p.zone, pa[ord].p.known
	}
	_, z, ok := d.PodDomains(ord)
	return z, ok
}

// zonesInRange reports whether SchedulableZones lists only zones below
// NumZones, as ZoneStats then counts the same zones as a walk over the
// marked ones would (it counts a zone out of range as holding none).
func (d *Decision) zonesInRange() bool {
	f := &d.feasible
	if f.inRange == 0 {
		f.inRange = 1
		for _, z := range d.cluster.SchedulableZones() {
			if z < 0 || int(z) >= len(d.onZone) {
				f.inRange = 2
			}
		}
	}
	return f.inRange == 1
}
