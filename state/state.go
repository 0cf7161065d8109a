package state

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/google/btree"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

const (
	// DefaultDrainingAnnotation marks a pod whose vreplicas must move away.
	// Any value other than "false" counts.
	DefaultDrainingAnnotation = "vsched.dev/draining"
	// DefaultZoneLabel is the node label read as the node's zone.
	DefaultZoneLabel = "topology.kubernetes.io/zone"
	// MaxOrdinal is the highest pod ordinal the state tracks
	// (vsched.MaxReplicas-1); pods, placements and replicas beyond it are
	// treated as foreign.
	MaxOrdinal = vsched.MaxReplicas - 1
)

// Options configure a State.
type Options struct {
	// StatefulSetName prefixes pod names: pods are "<name>-<ordinal>".
	StatefulSetName string
	// Capacity is the most vreplicas a pod may hold (>= 1).
	Capacity int32
	// DrainingAnnotation defaults to DefaultDrainingAnnotation.
	DrainingAnnotation string
	// ZoneLabel defaults to DefaultZoneLabel.
	ZoneLabel string
	// PodResources is what one pod can hold in each resource, for the
	// sources that declare a cost per vreplica; nil bounds pods by their
	// slots alone. SetPodResources changes it later (Options keeps
	// returning what New was given).
	PodResources corev1.ResourceList
	// CostEstimates gives the measured cost of the sources that opt into
	// one (vsched.EffectiveVReplicaCost), read when a source is observed;
	// nil: declared costs only.
	CostEstimates vsched.CostEstimates
}

// podState holds no pointer (the name is in State.names, the reason's text
// is made from refusal when Pod asks): every clone copies the pods, and an
// array without pointers is copied as plain memory, with no write barrier, and
// never scanned by the garbage collector.
type podState struct {
	exists      bool
	terminating bool
	draining    bool // from the pod's annotation
	// refusal is ensure's judgement of the pod (judge); the pod is a
	// candidate when it is mayReceive. A pod ensure has not judged yet is
	// unjudged, no candidate.
	refusal refusal
	node    int32
	// unboundSince is when the pod was first seen existing without a
	// node (UpsertPodAt); zero otherwise.
	unboundSince time.Time
	// used is an int64 because statuses are input: counts that are each
	// within bounds can still sum past MaxInt32 over many sources, and a
	// wrapped count would make a full pod look free.
	used    int64
	nodePos int32 // index in nodeCands[node] while a candidate
	// ikey and islot say where the zone index holds the pod (ikey 0:
	// nowhere); see zoneindex.go.
	ikey  int64
	islot int32
}

// candidate reports whether ensure judged that the pod may receive new
// vreplicas.
func (p *podState) candidate() bool { return p.refusal == mayReceive }

// free is the room left on the pod; negative when it holds more than the
// capacity.
func (p *podState) free(capacity int32) int64 { return int64(capacity) - p.used }

// saturate converts n to an int32, the nearest bound when out of range.
func saturate(n int64) int32 { return int32(max(min(n, math.MaxInt32), math.MinInt32)) }

type nodeState struct {
	name        string
	zone        int32
	exists      bool
	schedulable bool
	reason      string
	// unavailableSince is when the node was first seen NotReady or
	// unreachable; zero while it is available.
	unavailableSince time.Time
}

type entry struct {
	ord int32
	n   int32
}

// Reservation is the scheduler's latest decision for a source, not yet seen
// in the source's status.
type Reservation struct {
	Placements []vsched.Placement
	// BasedOn is the resource version of the source the decision was made
	// from.
	BasedOn string
	// At is when the decision was made.
	At time.Time
}

type source struct {
	key types.NamespacedName
	// gen is the State's gen when the record was made or copied; a record
	// of another gen may be shared with a copy (see own).
	gen         uint64
	committed   []vsched.Placement
	committedRV string
	reservation *Reservation
	effective   []entry // what counts against capacity
	// held sums effective, and maxOrd is its highest ordinal (-1: none),
	// so that a walk over every source need not read effective.
	held, maxOrd int32
	// slot numbers the source densely among the state's (SourceSummary).
	slot      int32
	pending   int32
	vreplicas int32
	// seen is the State's seq when the source was last observed or
	// reserved, so a resync can tell what is newer than its list.
	seen uint64
	// doubted is the listedAt of the resync that last kept the source
	// although its list lacked it (Unconfirmed); 0: none.
	doubted uint64
	// beyond is true while some placement of the source names an ordinal
	// above the pods the state holds, left out of effective.
	beyond bool
	// costList is the cost per vreplica the source last declared (nil:
	// none); cost is it in the state's dimensions, and counted the
	// vector effective is counted with in costs.use (costs.go).
	costList      corev1.ResourceList
	cost, counted []int64
}

// State is the cluster for one StatefulSet. See the package doc for locking.
type State struct {
	sync.Mutex

	opts Options
	// replicas is the size decisions go by: observed, or less while a
	// shrink is fenced (Fence).
	replicas int32
	// observed is spec.replicas as the StatefulSet informer last showed
	// it, and observedRV that event's resource version.
	observed   int32
	observedRV string
	// fence, while fenced, bounds replicas: a shrink the StatefulSet
	// informer has not confirmed yet. fenceRV is the resource version the
	// shrink was written at, fenceFromRV the one observed when it began.
	fenced      bool
	fence       int32
	fenceRV     string
	fenceFromRV string
	// pods is indexed by ordinal and walked by many calls, so it grows
	// only to ordinals near the StatefulSet's replicas (tracked): a stray
	// pod such as "adapter-65535" must not make every call walk 65,536
	// pods. Pods further up wait in strays, and placements on them are not
	// counted (beyond says how many sources have such placements), until
	// the StatefulSet grows near them. highWater is the most replicas
	// seen.
	pods []podState
	// names[ord] is pod ord's name, built once (Pod is on the hot path).
	// It only grows and never changes an entry, so clones share it.
	names     []string
	strays    map[int32]podState
	beyond    int
	highWater int32
	nodes     []nodeState
	nodeIdx   map[string]int32
	zones     []string
	zoneIdx   map[string]int32
	sources   map[types.NamespacedName]*source
	// pendingSet indexes the sources whose last decision left vreplicas
	// pending (source.pending > 0), so that requeueing them after every
	// write that frees room costs what they are, not every source known.
	// SetPending and drop keep it; nothing else changes source.pending.
	pendingSet map[types.NamespacedName]struct{}
	// drainMemory keeps pods draining that the scheduler itself marked,
	// so a pod recreated without the annotation stays draining.
	drainMemory map[int32]bool
	// outside counts placements whose pod name is not one of this
	// StatefulSet's; they take no capacity.
	outside int
	// seq counts source observations and reservations (see source.seen).
	seq uint64
	// newestRV is the newest numeric resource version observed of any
	// source, and deleted the sources forgotten within the reservation
	// TTL: a version of a deleted source that is not newer than its
	// tombstone is a read from before the deletion.
	newestRV uint64
	deleted  map[types.NamespacedName]tombstone

	// changes logs the sources changed (changes.go) since the log's epoch
	// began; roomSeq is RoomMark; gen owns the per-source records (own).
	changes []types.NamespacedName
	epoch   uint64
	// logShared: changes is a copy's view of its original's log.
	logShared bool
	roomSeq   uint64
	gen       uint64
	// slots is one more than the highest slot given; freeSlots are those
	// given back by forgotten sources, for the next new one.
	slots     int32
	freeSlots []int32
	// bySlot finds a source's record by its slot (SummaryAt), so a caller
	// that remembers slots hashes no key. An entry is nil or the record
	// sources holds under its key; a CloneFor clone starts it empty.
	bySlot []*source

	dirty      bool
	candidates []int32
	freeCands  int
	schedNodes []int32
	schedZones []int32
	growZones  []int32
	totalUsed  int64
	// nodeCands lists each node's candidates, ascending; firstFree[n] is a
	// position in nodeCands[n] before which every candidate is known full.
	// Together they let a decision find a node's lowest free pods without
	// walking the full ones again and again.
	nodeCands [][]int32
	firstFree []int32
	// zoneFree is the zone index (zoneindex.go): per zone slot (0: no
	// zone, z+1: zone z), the free candidates by framework.ClassKey.
	// seekFn, seekKey and seekOK are FirstFreeInZone's scratch.
	zoneFree    []*btree.BTreeG[int64]
	zoneFreeSum []int64 // per zone slot: the free capacity its tree holds
	// zoneNodes lists, per zone slot, the nodes in schedNodes; nodeFree
	// counts each node's candidates with free capacity, and zoneRoom,
	// per zone slot, the nodes where that count is above 0.
	zoneNodes [][]int32
	nodeFree  []int32
	zoneRoom  []int
	// holdIndex defers reindexing to the end of a recount, whose pods
	// touchBuf collects.
	holdIndex bool
	touchBuf  []int32
	seekFn    func(int64) bool
	seekKey   int64
	seekOK    bool

	// costs are the pods' resource capacities and use (costs.go).
	costs costs
}

var (
	_ framework.Cluster            = &State{}
	_ framework.FreeCandidateIndex = &State{}
	_ framework.ZoneFreeIndex      = &State{}
	_ framework.RoomIndex          = &State{}
	_ framework.ZoneCapacityIndex  = &State{}
	_ framework.PodPlacer          = &State{}
)

// New returns an empty State.
func New(opts Options) (*State, error) {
	if opts.StatefulSetName == "" {
		return nil, fmt.Errorf("state: StatefulSetName is required")
	}
	if opts.Capacity < 1 {
		return nil, fmt.Errorf("state: Capacity must be at least 1, got %d", opts.Capacity)
	}
	if opts.DrainingAnnotation == "" {
		opts.DrainingAnnotation = DefaultDrainingAnnotation
	}
	if opts.ZoneLabel == "" {
		opts.ZoneLabel = DefaultZoneLabel
	}
	dims, caps, err := podDims(opts.PodResources)
	if err != nil {
		return nil, err
	}
	opts.PodResources = opts.PodResources.DeepCopy()
	return &State{
		costs:       costs{dims: dims, dimCap: caps},
		opts:        opts,
		nodeIdx:     map[string]int32{},
		zoneIdx:     map[string]int32{},
		sources:     map[types.NamespacedName]*source{},
		pendingSet:  map[types.NamespacedName]struct{}{},
		drainMemory: map[int32]bool{},
		strays:      map[int32]podState{},
		dirty:       true,
		gen:         gens.Add(1),
		epoch:       epochs.Add(1),
	}, nil
}

// Options returns the options the state was built with, defaults applied.
func (s *State) Options() Options { return s.opts }

// SetCapacity changes the pods' capacity. Pods may end up over capacity;
// they keep their vreplicas (the evictor drains the excess).
func (s *State) SetCapacity(c int32) error {
	if c < 1 {
		return fmt.Errorf("state: capacity must be at least 1, got %d", c)
	}
	s.opts.Capacity = c
	s.invalidate()
	return nil
}

// SetReplicas records the StatefulSet's spec.replicas. While a shrink is
// fenced (Fence), Replicas stays at most the fence.
func (s *State) SetReplicas(n int32) {
	s.observed = clampReplicas(n)
	s.applyReplicas()
}

func clampReplicas(n int32) int32 { return max(0, min(n, MaxOrdinal+1)) }

func (s *State) applyReplicas() {
	n := s.observed
	if s.fenced {
		n = min(n, s.fence)
	}
	if n != s.replicas {
		s.replicas = n
		s.grow(n - 1)
		s.invalidate()
	}
	if n > s.highWater {
		s.highWater = n
		s.adoptStrays()
	}
}

// ObservedReplicas is spec.replicas as last recorded, whatever the fence.
func (s *State) ObservedReplicas() int32 { return s.observed }

// ObserveReplicas records spec.replicas from a StatefulSet event of
// resource version rv. A fenced shrink ends when the event confirms it: it
// shows at most the fenced size, or it is newer than the write (see
// newerRV). An older event, one the informer delivers late, leaves the
// fence in place, so the ordinals it removed never become candidates
// again. It reports whether the fence ended.
func (s *State) ObserveReplicas(n int32, rv string) bool {
	if s.StaleReplicas(rv) {
		return false
	}
	lifted := false
	if s.fenced && (clampReplicas(n) <= s.fence || newerRV(rv, s.fenceRV, s.fenceFromRV)) {
		s.fenced, lifted = false, true
	}
	s.observedRV = rv
	s.SetReplicas(n)
	return lifted
}

// StaleReplicas reports whether a StatefulSet event of resource version rv
// is older than the one the size was last taken from. The informer delivers
// in order, but a new term reads the StatefulSet from the API server, ahead
// of an informer that lags: the events it delivers late must not bring
// back the size they show.
func (s *State) StaleReplicas(rv string) bool { return olderRV(rv, s.observedRV) }

// Fence makes every ordinal at or above n a non-candidate at once, and
// Replicas at most n, before a shrink to n is written: no decision can then
// place anything on the pods it removes. It returns the fence in force
// before, for RestoreFence. A fence never rises while it lasts.
func (s *State) Fence(n int32) Fence {
	prev := Fence{fenced: s.fenced, at: s.fence, rv: s.fenceRV, fromRV: s.fenceFromRV}
	n = clampReplicas(n)
	if !s.fenced || n < s.fence {
		s.fence, s.fenceRV = n, ""
	}
	if !s.fenced {
		s.fenceFromRV = s.observedRV
	}
	s.fenced = true
	s.applyReplicas()
	return prev
}

// Fence is a fence as it was, to restore when the write it guarded failed.
type Fence struct {
	fenced     bool
	at         int32
	rv, fromRV string
}

// RestoreFence puts back the fence Fence returned: the shrink was not
// written, and the ordinals it fenced are candidates again.
func (s *State) RestoreFence(f Fence) {
	s.fenced, s.fence, s.fenceRV, s.fenceFromRV = f.fenced, f.at, f.rv, f.fromRV
	s.applyReplicas()
}

// FenceWritten records that the shrink to n was written at resource version
// rv: the size counts as observed at once, and the fence holds until an
// event confirms it (ObserveReplicas).
func (s *State) FenceWritten(n int32, rv string) {
	n = clampReplicas(n)
	if s.fenced && n == s.fence {
		s.fenceRV = rv
	}
	s.observed = min(s.observed, n)
	s.applyReplicas()
}

// Unfence ends the fence without an event: the caller has written a larger
// size since, which supersedes the shrink.
func (s *State) Unfence() {
	s.fenced = false
	s.applyReplicas()
}

// Fenced returns the size a shrink not yet confirmed fences the state at.
func (s *State) Fenced() (int32, bool) { return s.fence, s.fenced }

// newerRV reports whether resource version rv is known to be newer than
// written, the version a shrink was written at. Kubernetes resource
// versions are opaque, but every API server in use issues increasing
// integers; when they do not parse, a version other than the written one
// and than from (the one observed before the write) counts as newer.
func newerRV(rv, written, from string) bool {
	if rv == "" || written == "" {
		return false
	}
	a, okA := parseRV(rv)
	b, okB := parseRV(written)
	if okA && okB {
		return a > b
	}
	return rv != written && rv != from
}

// strayMargin is how far above the replicas the state keeps ordinals as
// the StatefulSet's even before its replicas reach them: a pod informer
// may run ahead of the StatefulSet's, and a scale-down leaves pods above
// the replicas for a while.
const strayMargin = 64

// tracked reports whether the ordinal is one the state keeps in pods: below
// the larger of twice the most replicas seen and strayMargin above them,
// and at most MaxOrdinal. Anything above is a stray.
func (s *State) tracked(ord int32) bool {
	limit := min(max(2*int64(s.highWater), int64(s.highWater)+strayMargin), MaxOrdinal+1)
	return ord >= 0 && int64(ord) < limit
}

// Tracks reports whether the ordinal is one the state keeps as the
// StatefulSet's. A pod above is a stray: it is never a candidate, never
// draining, and placements on it take no capacity, until the StatefulSet
// grows near it.
func (s *State) Tracks(ord int32) bool { return s.tracked(ord) }

// adoptStrays takes in the strays the replicas now reach, and counts the
// placements on ordinals they reach.
func (s *State) adoptStrays() {
	for ord := range s.strays {
		if s.tracked(ord) {
			s.grow(ord)
		}
	}
	if s.beyond > 0 {
		for k, src := range s.sources {
			if src.beyond {
				s.recount(s.own(k))
			}
		}
	}
}

// grow extends the pods to ord, taking in the strays it reaches.
func (s *State) grow(ord int32) {
	for int32(len(s.pods)) <= ord {
		o := int32(len(s.pods))
		p, ok := s.strays[o]
		if ok {
			delete(s.strays, o)
			s.invalidate()
		} else {
			p = podState{node: -1}
		}
		if int(o) >= len(s.names) {
			s.names = append(s.names, vsched.PodName(s.opts.StatefulSetName, o))
		}
		s.pods = append(s.pods, p)
	}
}

// ensure recomputes what derives from pods and nodes. It runs after pod,
// node or replica changes, which are rare next to decisions.
func (s *State) ensure() {
	if !s.dirty {
		return
	}
	s.candidates = s.candidates[:0]
	s.freeCands = 0
	nodeHas := make([]bool, len(s.nodes))
	zoneHas := make([]bool, len(s.zones))
	if cap(s.nodeCands) < len(s.nodes) {
		s.nodeCands = make([][]int32, len(s.nodes))
		s.firstFree = make([]int32, len(s.nodes))
	}
	s.nodeCands = s.nodeCands[:len(s.nodes)]
	s.firstFree = s.firstFree[:len(s.nodes)]
	for i := range s.nodeCands {
		s.nodeCands[i] = s.nodeCands[i][:0]
		s.firstFree[i] = 0
	}
	for i := range s.pods {
		p := &s.pods[i]
		p.refusal = s.judge(int32(i))
		s.reindex(int32(i))
		if !p.candidate() {
			continue
		}
		s.candidates = append(s.candidates, int32(i))
		p.nodePos = int32(len(s.nodeCands[p.node]))
		s.nodeCands[p.node] = append(s.nodeCands[p.node], int32(i))
		if p.free(s.opts.Capacity) > 0 {
			s.freeCands++
		}
		nodeHas[p.node] = true
		if z := s.nodes[p.node].zone; z >= 0 {
			zoneHas[z] = true
		}
	}
	s.schedNodes = s.schedNodes[:0]
	for i, ok := range nodeHas {
		if ok {
			s.schedNodes = append(s.schedNodes, int32(i))
		}
	}
	s.listZoneNodes()
	s.countRoom()
	s.schedZones = s.schedZones[:0]
	for i, ok := range zoneHas {
		if ok {
			s.schedZones = append(s.schedZones, int32(i))
		}
	}
	s.growZones = s.growZones[:0]
	if s.growing() {
		for _, z := range s.SchedulableNodeZones() {
			if !zoneHas[z] {
				s.growZones = append(s.growZones, z)
			}
		}
	}
	s.dirty = false
}

// refusal says why a pod may not receive new vreplicas; the text is made
// only when Pod asks, not for every pod every time the pods are judged.
type refusal uint8

const (
	// unjudged is the zero value: a pod ensure has not judged yet, no
	// candidate. judge never returns it.
	unjudged refusal = iota
	mayReceive
	aboveReplicas
	podMissing
	podTerminating
	podUnbound
	podDraining
	nodeMissing
	nodeUnschedulable
)

// judge says whether the pod may receive new vreplicas (mayReceive), and
// if not why not.
func (s *State) judge(ord int32) refusal {
	p := &s.pods[ord]
	switch {
	case ord >= s.replicas:
		return aboveReplicas
	case !p.exists:
		return podMissing
	case p.terminating:
		return podTerminating
	case p.node < 0:
		return podUnbound
	case p.draining || s.drainMemory[ord]:
		return podDraining
	}
	n := &s.nodes[p.node]
	switch {
	case !n.exists:
		return nodeMissing
	case !n.schedulable:
		return nodeUnschedulable
	}
	return mayReceive
}

// reason is the text of the pod's refusal, "" when it has none.
func (s *State) reason(ord int32, r refusal) string {
	switch r {
	case aboveReplicas:
		return fmt.Sprintf("ordinal %d is at or above the StatefulSet's %d replicas", ord, s.replicas)
	case podMissing:
		return "pod does not exist"
	case podTerminating:
		return "pod is terminating"
	case podUnbound:
		return "pod is not bound to a node"
	case podDraining:
		return "pod is draining"
	case nodeMissing:
		return "node " + s.nodes[s.pods[ord].node].name + " does not exist"
	case nodeUnschedulable:
		n := &s.nodes[s.pods[ord].node]
		return "node " + n.name + ": " + n.reason
	}
	return ""
}

// Capacity implements framework.Cluster.
func (s *State) Capacity() int32 { return s.opts.Capacity }

// Replicas implements framework.Cluster.
func (s *State) Replicas() int32 { return s.replicas }

// Pod implements framework.Cluster.
func (s *State) Pod(ord int32) (framework.PodInfo, bool) {
	if ord < 0 || int(ord) >= len(s.pods) || !s.pods[ord].exists {
		return framework.PodInfo{}, false
	}
	s.ensure()
	p := &s.pods[ord]
	info := framework.PodInfo{
		Ordinal:   ord,
		Name:      s.names[ord],
		NodeIndex: -1,
		ZoneIndex: -1,
		Candidate: p.candidate(),
	}
	if !p.candidate() {
		// As ensure judged it: nothing the judgement reads has changed
		// since without making the state dirty.
		info.Reason = s.reason(ord, p.refusal)
	}
	if p.node >= 0 {
		n := &s.nodes[p.node]
		info.Node, info.NodeIndex, info.ZoneIndex = n.name, p.node, n.zone
		if n.zone >= 0 {
			info.Zone = s.zones[n.zone]
		}
	}
	return info, true
}

// IsCandidate implements framework.Cluster.
func (s *State) IsCandidate(ord int32) bool {
	if ord < 0 || int(ord) >= len(s.pods) || !s.pods[ord].exists {
		return false
	}
	s.ensure()
	return s.pods[ord].candidate()
}

// PodPlace implements framework.PodPlacer.
func (s *State) PodPlace(ord int32) (node, zone int32, candidate, known bool) {
	if ord < 0 || int(ord) >= len(s.pods) || !s.pods[ord].exists {
		return -1, -1, false, false
	}
	s.ensure()
	p := &s.pods[ord]
	if p.node < 0 {
		return -1, -1, p.candidate(), true
	}
	return p.node, s.nodes[p.node].zone, p.candidate(), true
}

// Free implements framework.Cluster.
func (s *State) Free(ord int32) int32 {
	if ord < 0 || int(ord) >= len(s.pods) || !s.pods[ord].exists {
		return 0
	}
	return saturate(s.pods[ord].free(s.opts.Capacity))
}

// Candidates implements framework.Cluster.
func (s *State) Candidates() []int32 { s.ensure(); return s.candidates }

// FreeCandidates implements framework.Cluster.
func (s *State) FreeCandidates() int { s.ensure(); return s.freeCands }

// NumNodes implements framework.Cluster.
func (s *State) NumNodes() int { return len(s.nodes) }

// NumZones implements framework.Cluster.
func (s *State) NumZones() int { return len(s.zones) }

// NodeName implements framework.Cluster.
func (s *State) NodeName(i int32) string {
	if i < 0 || int(i) >= len(s.nodes) {
		return ""
	}
	return s.nodes[i].name
}

// ZoneName implements framework.Cluster.
func (s *State) ZoneName(i int32) string {
	if i < 0 || int(i) >= len(s.zones) {
		return ""
	}
	return s.zones[i]
}

// SchedulableNodes implements framework.Cluster.
func (s *State) SchedulableNodes() []int32 { s.ensure(); return s.schedNodes }

// SchedulableZones implements framework.Cluster.
func (s *State) SchedulableZones() []int32 { s.ensure(); return s.schedZones }

// GrowthZones implements framework.Cluster.
func (s *State) GrowthZones() []int32 { s.ensure(); return s.growZones }

// growing reports whether some ordinal below the StatefulSet's replicas has
// no pod bound to a node yet, or a terminating one that will be recreated:
// a scale-up (or a replacement) whose pods kube-scheduler has still to
// place.
func (s *State) growing() bool {
	for ord := int32(0); ord < s.replicas && int(ord) < len(s.pods); ord++ {
		if p := &s.pods[ord]; !p.exists || p.node < 0 || p.terminating {
			return true
		}
	}
	return false
}

// Used is the vreplicas every source holds on the pod, committed or
// reserved, saturated at MaxInt32 (only statuses far beyond the bounds can
// reach it).
func (s *State) Used(ord int32) int32 {
	if ord < 0 || int(ord) >= len(s.pods) {
		return 0
	}
	return saturate(s.pods[ord].used)
}

// TotalUsed is the vreplicas held over all pods.
func (s *State) TotalUsed() int64 { return s.totalUsed }

// HighestUsedOrdinal is the highest ordinal holding any vreplica, -1 when
// none does. The StatefulSet must not shrink past it.
func (s *State) HighestUsedOrdinal() int32 {
	for i := len(s.pods) - 1; i >= 0; i-- {
		if s.pods[i].used > 0 {
			return int32(i)
		}
	}
	return -1
}

// NumPods is the size of the ordinal space known (existing or not).
func (s *State) NumPods() int32 { return int32(len(s.pods)) }

// PodExists reports whether the pod with the ordinal exists.
func (s *State) PodExists(ord int32) bool {
	return ord >= 0 && int(ord) < len(s.pods) && s.pods[ord].exists
}

// Draining reports whether the pod is draining, by annotation or memory.
func (s *State) Draining(ord int32) bool {
	if ord < 0 || int(ord) >= len(s.pods) {
		return s.drainMemory[ord]
	}
	return s.pods[ord].draining || s.drainMemory[ord]
}

// SetDraining remembers (or forgets) that the scheduler marked the pod
// draining, independently of the pod object's annotation.
func (s *State) SetDraining(ord int32, draining bool) {
	if draining {
		if !s.tracked(ord) {
			// A stray pod is not the StatefulSet's to drain.
			return
		}
		s.drainMemory[ord] = true
	} else {
		delete(s.drainMemory, ord)
	}
	s.invalidate()
}

// MarkDraining is SetDraining(ord, true) that says whether it recorded
// anything: a stray ordinal (Tracks) is refused.
func (s *State) MarkDraining(ord int32) bool {
	if !s.tracked(ord) {
		return false
	}
	s.SetDraining(ord, true)
	return true
}

// UnmarkRemoved forgets the draining memory of every pod at or above from
// that does not exist: the StatefulSet was shrunk past it, and a pod
// created later with its ordinal starts fresh.
func (s *State) UnmarkRemoved(from int32) {
	for o := range s.drainMemory {
		if o >= from && !s.PodExists(o) {
			s.SetDraining(o, false)
		}
	}
}

// DrainingOrdinals lists, ascending, every pod marked draining.
func (s *State) DrainingOrdinals() []int32 {
	set := map[int32]bool{}
	for o := range s.drainMemory {
		set[o] = true
	}
	for i := range s.pods {
		if s.pods[i].draining {
			set[int32(i)] = true
		}
	}
	out := make([]int32, 0, len(set))
	for o := range set {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// NodeUnavailableSince is when the pod's node was first seen NotReady or
// unreachable; zero when it is available or unknown.
func (s *State) NodeUnavailableSince(ord int32) time.Time {
	if ord < 0 || int(ord) >= len(s.pods) || s.pods[ord].node < 0 {
		return time.Time{}
	}
	return s.nodes[s.pods[ord].node].unavailableSince
}

// setUsed adjusts one pod's used count, keeping the free-candidate count
// exact without a full recomputation.
func (s *State) addUsed(ord int32, delta int32) {
	s.grow(ord)
	p := &s.pods[ord]
	wasFree := p.free(s.opts.Capacity) > 0
	p.used += int64(delta)
	s.totalUsed += int64(delta)
	if !s.dirty && !s.holdIndex {
		s.reindex(ord)
	}
	if !s.dirty && p.candidate() {
		isFree := p.free(s.opts.Capacity) > 0
		if wasFree && !isFree {
			s.freeCands--
			s.noteNodeFree(p.node, -1)
		} else if !wasFree && isFree {
			s.freeCands++
			s.noteNodeFree(p.node, 1)
			if p.nodePos < s.firstFree[p.node] {
				s.firstFree[p.node] = p.nodePos
			}
		}
	}
}

// EachFreeCandidate implements framework.FreeCandidateIndex.
func (s *State) EachFreeCandidate(node int32, fn func(int32) bool) {
	s.ensure()
	if node < 0 || int(node) >= len(s.nodeCands) {
		return
	}
	list := s.nodeCands[node]
	i := s.firstFree[node]
	for int(i) < len(list) && s.pods[list[i]].free(s.opts.Capacity) <= 0 {
		i++
	}
	s.firstFree[node] = i
	for ; int(i) < len(list); i++ {
		if ord := list[i]; s.pods[ord].free(s.opts.Capacity) > 0 && !fn(ord) {
			return
		}
	}
}
