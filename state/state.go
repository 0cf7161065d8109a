package state

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/google/btree"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
)

const (
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
	// DrainingAnnotation defaults to evictor.DefaultAnnotation.
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
	// tallied is the vreplicas the heavy room's totals count the source
	// with (heavyroom.go).
	tallied int32
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
		opts.DrainingAnnotation = evictor.DefaultAnnotation
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
