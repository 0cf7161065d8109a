package framework

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// StateKey names a value a plugin stores in a Decision.
type StateKey string

// Decision is the state of one decision about one source: the cluster it is
// made against, the source's vreplicas per pod, node and zone (updated by the
// runtime after every change), and whatever plugins stored in Prepare.
//
// A Decision belongs to one goroutine. Plugins read it; only the runtime
// changes it.
type Decision struct {
	mode          Mode
	cluster       Cluster
	key           types.NamespacedName
	vpod          vsched.VPod
	resourceCount int32
	// res and cost are the source's cost side (costs.go), nil for a
	// source that costs nothing but its slot.
	res   ResourceCluster
	cost  []int64
	cheap CheapestCoster // res, when it is one (strands.go)
	// resCap and cheapest are res's capacity and cheap's cheapest cost in
	// the first dimensions (costs.go): read for every candidate at every
	// step, and constant while the decision runs.
	resCap, cheapest [maxClassDims]int64
	// freeMemo keeps ResourceFree's answers of the current generation
	// (costs.go); nil for a decision without a cost.
	freeMemo *freeMemo
	// heavy keeps the heavy room's counts (heavyroom.go).
	heavy heavyMemo

	onPod    map[int32]int32            // ordinal -> the source's vreplicas, entries > 0 only, until onPodAt takes over (apply)
	podNames map[int32]vsched.Placement // where each pod was, as base or the cluster first said
	onNode   []int32
	onZone   []int32
	delta    ordCounts // changes made by this decision, per ordinal
	// deltaAt holds delta again, indexed by ordinal (from 0 to the highest
	// ordinal changed): Free, called for every candidate at every step,
	// reads it without hashing. Only apply writes either. Only a decision
	// that is Reset keeps it (nil otherwise): one reused for many sources
	// pays for the slice once, while a decision made for a single Schedule
	// call would allocate it, up to the highest ordinal, every time.
	deltaAt []int32
	// held and changed are filters over onPod's and delta's keys (no false
	// negatives): OnPod and Free, called for most candidates at every
	// step, hash no key for a pod the source does not hold or the decision
	// has not changed, most pods for a source of a few vreplicas.
	held, changed ordMask
	total         int32
	// nonHolderFree counts candidates with free capacity holding none of
	// the source; they all count 0 towards the pod spread.
	nonHolderFree int

	kept                keptStats // keptstats.go
	gen                 uint64
	podGen, nodeGen     uint64
	zoneGen             uint64
	zoneSpreadGen       uint64
	podStats, nodeStats DomainStats
	zoneStats           DomainStats
	zoneSpreadStats     DomainStats
	holders             []int32 // holders.go keeps these current
	onPodAt             []int32
	roomHolders         []int32
	podCounts           countHist
	state               map[StateKey]any
	changes             int32
	room                room
	feasible            feasibleZones
	// quiet is set while the runtime filters candidates only to pick a
	// winner: the reasons of a rejection are then dropped unread.
	quiet bool
}

// NewDecision starts a decision for vpod against cluster, from the source's
// current placements base (which the cluster's free capacity already
// counts). base may differ from vpod.GetPlacements(), for example when the
// scheduler has dropped placements it is about to move. vpod may be nil in
// tests that only need a key.
func NewDecision(mode Mode, cluster Cluster, vpod vsched.VPod, base []vsched.Placement) (*Decision, error) {
	d := &Decision{
		mode:     mode,
		cluster:  cluster,
		vpod:     vpod,
		onPod:    make(map[int32]int32, len(base)+4),
		podNames: make(map[int32]vsched.Placement, len(base)+4),
		onNode:   make([]int32, cluster.NumNodes()),
		onZone:   make([]int32, cluster.NumZones()),
		gen:      1,
	}
	d.room.placer, _ = cluster.(PodPlacer)
	if err := d.fill(base); err != nil {
		return nil, err
	}
	return d, nil
}

// Reset makes d the decision NewDecision(mode, cluster, vpod, base) would
// return, reusing d's maps and slices: a caller deciding for many sources in
// turn, such as the autoscaler's scan for sources to rebalance, then
// allocates about once instead of once per source. Nothing obtained from d
// before (Holders, Placements) may be used after. On error d is unusable
// until the next successful Reset.
func (d *Decision) Reset(mode Mode, cluster Cluster, vpod vsched.VPod, base []vsched.Placement) error {
	onPod, podNames, delta, state, places := d.onPod, d.podNames, d.delta, d.state, d.room.places
	feasibleMark, memo := d.feasible.mark, d.freeMemo
	deltaAt := d.deltaAt
	if deltaAt == nil {
		deltaAt = make([]int32, 0, cluster.Replicas())
	}
	for ord := range delta.all() {
		if ord >= 0 && int(ord) < len(deltaAt) {
			deltaAt[ord] = 0
		}
	}
	clear(onPod)
	clear(podNames)
	delta.clear()
	clear(state)
	clear(places)
	*d = Decision{
		mode: mode, cluster: cluster, vpod: vpod,
		onPod: onPod, podNames: podNames, delta: delta, deltaAt: deltaAt, state: state,
		onNode:      zeroed(d.onNode, cluster.NumNodes()),
		onZone:      zeroed(d.onZone, cluster.NumZones()),
		holders:     d.holders[:0],
		roomHolders: d.roomHolders[:0],
		podCounts:   countHist{c: d.podCounts.c[:0]},
		gen:         1,
	}
	d.room.places = places
	d.feasible.mark, d.freeMemo = feasibleMark, memo
	d.room.placer, _ = cluster.(PodPlacer)
	if d.onPod == nil {
		d.onPod = make(map[int32]int32, len(base)+4)
		d.podNames = make(map[int32]vsched.Placement, len(base)+4)
	}
	return d.fill(base)
}

// zeroed returns n zero values, in s's array when it is large enough.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// fill counts the base placements into a fresh decision.
func (d *Decision) fill(base []vsched.Placement) error {
	cluster, vpod := d.cluster, d.vpod
	if vpod != nil {
		d.key = vpod.GetKey()
		d.resourceCount = vsched.ResourceCount(vpod)
	}
	d.costOf()
	d.nonHolderFree = cluster.FreeCandidates()
	for i, p := range base {
		if p.VReplicas < 0 {
			return fmt.Errorf("%s: placements[%d] (pod %q): vreplicas is negative (%d)", d.key, i, p.PodName, p.VReplicas)
		}
		if p.VReplicas == 0 {
			continue
		}
		ord, err := vsched.OrdinalFromPodName(p.PodName)
		if err != nil {
			return fmt.Errorf("%s: placements[%d]: %w", d.key, i, err)
		}
		if _, dup := d.onPod[ord]; dup {
			return fmt.Errorf("%s: placements[%d]: pod %q is listed twice", d.key, i, p.PodName)
		}
		d.onPod[ord] = p.VReplicas
		d.held.add(ord)
		d.podNames[ord] = vsched.Placement{PodName: p.PodName, NodeName: p.NodeName, ZoneName: p.ZoneName}
		d.total += p.VReplicas
		if info, ok := cluster.Pod(ord); ok {
			if info.NodeIndex >= 0 && int(info.NodeIndex) < len(d.onNode) {
				d.onNode[info.NodeIndex] += p.VReplicas
			}
			if info.ZoneIndex >= 0 && int(info.ZoneIndex) < len(d.onZone) {
				d.onZone[info.ZoneIndex] += p.VReplicas
			}
			// A pod is listed once (checked above): it leaves the
			// non-holders once.
			if info.Candidate && cluster.Free(ord) > 0 {
				d.nonHolderFree--
			}
		}
	}
	d.indexHolders()
	return nil
}

// Mode says whether the decision places or removes.
func (d *Decision) Mode() Mode { return d.mode }

// Cluster is the cluster the decision is made against.
func (d *Decision) Cluster() Cluster { return d.cluster }

// Key is the source's key.
func (d *Decision) Key() types.NamespacedName { return d.key }

// VPod is the source, possibly nil in tests.
func (d *Decision) VPod() vsched.VPod { return d.vpod }

// ResourceCount is the source's own resource count (vsched.ResourceCounter),
// 0 when it reports none.
func (d *Decision) ResourceCount() int32 { return d.resourceCount }

// OnPod is the source's vreplicas on the pod, this decision's changes
// included.
func (d *Decision) OnPod(ordinal int32) int32 {
	if d.onPodAt != nil && ordinal >= 0 {
		if int(ordinal) < len(d.onPodAt) {
			return d.onPodAt[ordinal]
		}
		return 0
	}
	if !d.held.has(ordinal) {
		return 0
	}
	return d.onPod[ordinal]
}

// OnNode is the source's vreplicas on the node with the index.
func (d *Decision) OnNode(index int32) int32 {
	if index < 0 || int(index) >= len(d.onNode) {
		return 0
	}
	return d.onNode[index]
}

// OnZone is the source's vreplicas in the zone with the index.
func (d *Decision) OnZone(index int32) int32 {
	if index < 0 || int(index) >= len(d.onZone) {
		return 0
	}
	return d.onZone[index]
}

// Total is the source's vreplicas over all pods.
func (d *Decision) Total() int32 { return d.total }

// PodsHeld is how many distinct pods hold at least one of the source's
// vreplicas.
func (d *Decision) PodsHeld() int { return len(d.holders) }

// Holders lists, ascending, the ordinals of the pods holding the source.
// Callers must not modify the slice.
func (d *Decision) Holders() []int32 { return d.holders }

// Free is the pod's free capacity with this decision's changes applied.
func (d *Decision) Free(ordinal int32) int32 {
	if at := d.room.placeAt; ordinal >= 0 && int(ordinal) < len(at) && int(ordinal) < len(d.deltaAt) {
		if e := &at[ordinal]; e.set {
			return e.free - d.deltaAt[ordinal] // placedense.go
		}
		d.place(ordinal) // fills the entry
		return at[ordinal].free - d.deltaAt[ordinal]
	}
	free := d.cluster.Free(ordinal)
	if !d.changed.has(ordinal) {
		return free
	}
	if ordinal >= 0 && int(ordinal) < len(d.deltaAt) {
		return free - d.deltaAt[ordinal]
	}
	return free - d.delta.get(ordinal)
}

// ReasonsWanted reports whether a Filter's rejection reasons will be read.
// The runtime calls the filters far more often to pick a winner, when it
// drops the reasons, than to explain a decision or say why nothing fit; a
// filter whose reasons cost allocations (formatted messages) may then
// return a preallocated Status without reasons. It is true outside the
// runtime, so a plugin's own tests see the reasons.
func (d *Decision) ReasonsWanted() bool { return !d.quiet }

// Changed is how many vreplicas this decision has placed or removed so far.
func (d *Decision) Changed() int32 { return d.changes }

// NonHolderFreeCandidates is how many candidate pods have free capacity and
// hold none of the source's vreplicas.
func (d *Decision) NonHolderFreeCandidates() int { return d.nonHolderFree }

// Store keeps a plugin's per-decision value under key.
func (d *Decision) Store(key StateKey, value any) {
	if d.state == nil {
		d.state = make(map[StateKey]any, 2)
	}
	d.state[key] = value
}

// Load returns the value stored under key.
func (d *Decision) Load(key StateKey) (any, bool) {
	v, ok := d.state[key]
	return v, ok
}

// DomainStats summarises the source's vreplicas over a set of domains (pods,
// nodes or zones). With no domains every field is 0.
type DomainStats struct {
	// Domains is how many domains were counted.
	Domains int
	// Min and Max are the lowest and highest counts.
	Min, Max int32
	// AtMin and AtMax are how many domains have exactly Min (Max).
	AtMin, AtMax int
	// NextMin is the lowest count above Min (Max when there is none);
	// NextMax is the highest count below Max (Min when there is none).
	NextMin, NextMax int32
}

// Skew is Max - Min.
func (s DomainStats) Skew() int32 { return s.Max - s.Min }

// SkewAfterAdd is the skew once one domain now holding current gets one more.
func (s DomainStats) SkewAfterAdd(current int32) int32 {
	if s.Domains == 0 {
		return 0
	}
	newMax := s.Max
	if current+1 > newMax {
		newMax = current + 1
	}
	newMin := s.Min
	if current == s.Min && s.AtMin == 1 {
		newMin = current + 1
		if s.Domains > 1 && s.NextMin < newMin {
			newMin = s.NextMin
		}
	}
	return newMax - newMin
}

// SkewAfterRemove is the skew once one domain now holding current (> 0) gets
// one fewer.
func (s DomainStats) SkewAfterRemove(current int32) int32 {
	if s.Domains == 0 {
		return 0
	}
	newMin := s.Min
	if current-1 < newMin {
		newMin = current - 1
	}
	newMax := s.Max
	if current == s.Max && s.AtMax == 1 {
		newMax = current - 1
		if s.Domains > 1 && s.NextMax > newMax {
			newMax = s.NextMax
		}
	}
	return newMax - newMin
}

type statsAcc struct{ s DomainStats }

func (a *statsAcc) addN(v int32, n int) {
	if n <= 0 {
		return
	}
	s := &a.s
	if s.Domains == 0 {
		*s = DomainStats{Domains: n, Min: v, Max: v, AtMin: n, AtMax: n, NextMin: v, NextMax: v}
		return
	}
	s.Domains += n
	switch {
	case v < s.Min:
		s.NextMin, s.Min, s.AtMin = s.Min, v, n
	case v == s.Min:
		s.AtMin += n
	case v < s.NextMin || s.NextMin == s.Min:
		s.NextMin = v
	}
	switch {
	case v > s.Max:
		s.NextMax, s.Max, s.AtMax = s.Max, v, n
	case v == s.Max:
		s.AtMax += n
	case v > s.NextMax || s.NextMax == s.Max:
		s.NextMax = v
	}
}

func (a *statsAcc) done() DomainStats {
	s := a.s
	if s.NextMin == s.Min {
		s.NextMin = s.Max
	}
	if s.NextMax == s.Max {
		s.NextMax = s.Min
	}
	return s
}

// PodStats summarises the source's vreplicas over its eligible pods: the
// candidates that have free capacity or already hold the source. Every
// eligible pod not holding the source counts as 0.
func (d *Decision) PodStats() DomainStats {
	if d.podGen != d.gen {
		d.podStats = d.podCounts.stats(d.nonHolderFree)
		d.podGen = d.gen
	}
	return d.podStats
}

// NodeStats summarises the source's vreplicas over Cluster.SchedulableNodes.
func (d *Decision) NodeStats() DomainStats {
	if d.nodeGen != d.gen {
		if d.keeps() {
			d.nodeStats, d.nodeGen = d.keptNodeStats(), d.gen
			return d.nodeStats
		}
		if ri, ok := d.roomIndex(); ok {
			d.nodeStats, d.nodeGen = d.nodeStatsFromIndex(ri), d.gen
			return d.nodeStats
		}
		var acc statsAcc
		for _, n := range d.cluster.SchedulableNodes() {
			acc.addN(d.OnNode(n), 1)
		}
		d.nodeStats = acc.done()
		d.nodeGen = d.gen
	}
	return d.nodeStats
}

// ZoneStats summarises the source's vreplicas over Cluster.SchedulableZones.
func (d *Decision) ZoneStats() DomainStats {
	if d.zoneGen != d.gen {
		if d.keeps() {
			d.zoneStats, d.zoneGen = d.keptZoneStats(), d.gen
			return d.zoneStats
		}
		d.zoneStats = statsOver(d.onZone, d.cluster.SchedulableZones())
		d.zoneGen = d.gen
	}
	return d.zoneStats
}

// ZoneSpreadStats summarises the source's vreplicas over
// Cluster.SchedulableZones and Cluster.GrowthZones together: the zones a
// hard zone spread must balance over, including those a scale-up in flight
// is about to give pods.
func (d *Decision) ZoneSpreadStats() DomainStats {
	if d.zoneSpreadGen != d.gen {
		if growth := d.cluster.GrowthZones(); len(growth) == 0 {
			d.zoneSpreadStats = d.ZoneStats()
		} else if d.keeps() {
			d.zoneSpreadStats = d.keptZoneSpreadStats(growth)
		} else {
			d.zoneSpreadStats = statsOver(d.onZone, d.cluster.SchedulableZones(), growth)
		}
		d.zoneSpreadGen = d.gen
	}
	return d.zoneSpreadStats
}

// CountedZoneStats is ZoneSpreadStats for a source holding onZone[z]
// vreplicas in the zone of index z of c (a zone past the slice holds none):
// what a ZoneRebalancer's rule reads, without a Decision.
func CountedZoneStats(c Cluster, onZone []int32) DomainStats {
	return statsOver(onZone, c.SchedulableZones(), c.GrowthZones())
}

// statsOver summarises counts[z] over the zones listed; a zone outside
// counts holds none.
func statsOver(counts []int32, lists ...[]int32) DomainStats {
	var acc statsAcc
	for _, zones := range lists {
		for _, z := range zones {
			var n int32
			if z >= 0 && int(z) < len(counts) {
				n = counts[z]
			}
			acc.addN(n, 1)
		}
	}
	return acc.done()
}

// apply records one change of delta (+1 or -1) on the pod.
func (d *Decision) apply(ordinal int32, delta int32) {
	// Where the pod is, as Cluster.Pod says, without its names: a pod the
	// decision adds to has no podNames entry, and Placements and podName
	// then name it as the cluster does.
	p := d.place(ordinal)
	known := p.known
	info := PodInfo{Ordinal: ordinal, NodeIndex: p.node, ZoneIndex: p.zone, Candidate: p.candidate}
	before := d.OnPod(ordinal)
	freeBefore := d.Free(ordinal)
	after := before + delta
	// Once onPodAt holds the counts, the map is left as it is: OnPod,
	// PodsHeld and Placements read onPodAt and holders (a map of
	// hundreds of pods cost a tenth of a large decision's changes).
	switch {
	case d.onPodAt != nil && ordinal >= 0:
	case after > 0:
		d.onPod[ordinal] = after
		d.held.add(ordinal)
	default:
		delete(d.onPod, ordinal)
	}
	d.noteDense(ordinal, after)
	if known {
		if info.NodeIndex >= 0 && int(info.NodeIndex) < len(d.onNode) {
			d.onNode[info.NodeIndex] += delta
		}
		if info.ZoneIndex >= 0 && int(info.ZoneIndex) < len(d.onZone) {
			d.onZone[info.ZoneIndex] += delta
		}
	}
	if d.heavy.watch != 0 {
		d.noteHeavy(ordinal, delta, known) // heavyroom.go
	}
	d.delta.add(ordinal, delta)
	d.changed.add(ordinal)
	if ordinal >= 0 && d.deltaAt != nil {
		if n := int(ordinal) + 1; n > len(d.deltaAt) {
			d.deltaAt = append(d.deltaAt, make([]int32, n-len(d.deltaAt))...)
		}
		d.deltaAt[ordinal] += delta // deltaAt mirrors delta
	}
	// The cluster does not change while the decision runs: the pod's Free
	// is now freeBefore less the change, asked of no one again.
	freeAfter := freeBefore - delta
	d.noteHolder(ordinal, p, before, after, freeBefore, freeAfter)
	d.total += delta
	d.changes++
	d.notePlaceDense()
	if known && info.Candidate {
		d.noteFreed(ordinal, info.NodeIndex, info.ZoneIndex, before, after, freeBefore, freeAfter)
		d.notePodRoom(ordinal, p.node, before, after, freeBefore, freeAfter)
	}
	// Keep nonHolderFree exact: a candidate counts there while it has free
	// capacity and holds none of the source.
	if known {
		d.noteFree(info, freeBefore, freeAfter)
		d.noteCounts(info.NodeIndex, info.ZoneIndex)
	}
	if known && info.Candidate {
		wasNonHolderFree := before == 0 && freeBefore > 0
		isNonHolderFree := after <= 0 && freeAfter > 0
		if wasNonHolderFree && !isNonHolderFree {
			d.nonHolderFree--
		} else if !wasNonHolderFree && isNonHolderFree {
			d.nonHolderFree++
		}
	}
	d.gen++
}

// Placements returns the source's placements as the decision leaves them,
// sorted by ordinal, with each pod's node and zone as the cluster knows them
// now (or as base recorded them, for pods the cluster does not know).
func (d *Decision) Placements() []vsched.Placement {
	out := make([]vsched.Placement, 0, len(d.holders))
	for _, ord := range d.Holders() {
		p := d.podNames[ord]
		p.VReplicas = d.OnPod(ord)
		if info, ok := d.cluster.Pod(ord); ok {
			if p.PodName == "" {
				p.PodName = info.Name
			}
			p.NodeName, p.ZoneName = info.Node, info.Zone
		}
		out = append(out, p)
	}
	return out
}
