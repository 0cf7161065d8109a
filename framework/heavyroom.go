package framework

import (
	"math"
	"math/bits"

	"github.com/vsched/vsched"
)

// HeavyRoomCounter is implemented by a ResourceCluster that keeps count of
// the room its pods have for the dearest sources' vreplicas and of the
// vreplicas its sources still wait for (package state implements it).
// With it a decision for a cheaper source can tell a placement that takes
// a place the dearer vreplicas need (Decision.TakesHeavyRoom).
type HeavyRoomCounter interface {
	// HeavyRoom is the heavy room in ResourceNames()[dim] for a source
	// costing cost there.
	HeavyRoom(dim int, cost int64) HeavyRoom
}

// HeavyRoom is what a cluster counts of the room for the dearest
// vreplicas in one resource, the pods as the cluster shows them.
type HeavyRoom struct {
	// Fit measures the pods: slots, capacity, cheapest and dearest cost.
	Fit HeavyFit
	// Places sums, over the pods that hold vreplicas, Fit.Places times
	// what the dearest cost beyond the cheapest (milli-units); Open sums
	// their free slots.
	Places, Open int64
	// Unplaced is how many vreplicas the known sources wait for (asked
	// for and not placed), Need what those of sources dearer than the
	// source asking cost beyond the cheapest (milli-units).
	Unplaced, Need int64
}

// Slack is the room left for the dearer vreplicas beyond what they need:
// the places of the pods in use, and of an empty pod for each Slots of
// the vreplicas waiting beyond the free slots of the pods in use (the
// pods they will open), less Need. Taking a place costs Fit's dearest
// less its cheapest.
func (h HeavyRoom) Slack() int64 {
	dx := h.Fit.Dearest - h.Fit.Cheapest
	room := h.Fit.Places(h.Fit.Slots, h.Fit.Capacity) * dx
	slack := vsched.CostSum(h.Places, mulDiv(room, max(0, h.Unplaced-h.Open), h.Fit.Slots))
	return vsched.CostSum(slack, -h.Need)
}

// mulDiv is a × b / c for non-negative a and b and positive c, in 128
// bits, saturating at math.MaxInt64.
func mulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(min(q, math.MaxInt64))
}

// HeavyFit describes one resource of the pods for the heavy room: a pod's
// slots and capacity, and the cheapest and the dearest cost per vreplica
// of the sources counted.
type HeavyFit struct {
	Slots, Capacity, Cheapest, Dearest int64
}

// Places is how many vreplicas at the dearest cost a pod with free slots
// and left of the resource can still take while its other free slots take
// vreplicas at the cheapest: (left − free × cheapest) over what the dearest
// costs beyond the cheapest, at most free. It is 0 when no source is
// dearer than the cheapest.
func (h HeavyFit) Places(free, left int64) int64 {
	dx := h.Dearest - h.Cheapest
	if free <= 0 || dx <= 0 {
		return 0
	}
	return max(0, min(free, vsched.CostSum(left, -costTimes(saturate32(free), h.Cheapest))/dx))
}

// costTimes is vsched.CostTimes without its division where the product
// cannot overflow: n within ±2^12 and a cost within vsched.MaxCost (2^50).
func costTimes(n int32, c int64) int64 {
	if n > -1<<12 && n < 1<<12 && c >= 0 && c <= vsched.MaxCost {
		return int64(n) * c
	}
	return vsched.CostTimes(n, c)
}

func saturate32(n int64) int32 { return int32(max(min(n, math.MaxInt32), math.MinInt32)) }

// TakesHeavyRoom reports whether one more vreplica of the source on the
// pod takes a place dearer sources' waiting vreplicas need: in some
// dimension the source is cheaper than the dearest, the vreplica leaves
// the pod fewer places for the dearest vreplicas (HeavyFit.Places: its
// last free slots, once its memory would take them), and the heavy room's
// slack (HeavyRoom.Slack, with this decision's changes) is short of that
// place. While the slack lasts, cheaper vreplicas fill pods as before:
// the places beyond what the known dearer vreplicas need are given up
// first, and none is kept when no dearer vreplica waits. It is false for
// a source without a cost, on a cluster that is no HeavyRoomCounter, in a
// Run of a grouped profile without a costed variant (as Strands is), and
// in the dimensions past the first four (those cost classes compare).
func (d *Decision) TakesHeavyRoom(ordinal int32) bool {
	// Small enough to inline: most calls end here.
	if d.cheap == nil || d.heavy.quiet == d.gen {
		return false
	}
	return d.takesHeavyRoom(ordinal)
}

func (d *Decision) takesHeavyRoom(ordinal int32) bool {
	short := d.HeavyRoomShort()
	if short == 0 {
		return false
	}
	free := int64(d.Free(ordinal))
	if free <= 0 {
		return false
	}
	for dim := range d.heavy.dims {
		if short&(1<<dim) == 0 {
			continue
		}
		fit, left := d.heavy.room[dim].Fit, d.ResourceFree(ordinal, dim)
		if fit.Places(free-1, vsched.CostSum(left, -d.cost[dim])) < fit.Places(free, left) {
			return true
		}
	}
	return false
}

// heavyMemo is what a decision keeps of the heavy room: the cluster's
// counts for the first dimensions with the decision's changes (read once,
// then kept as the decision changes: the cluster does not change while it
// runs), and which dimensions are short of a place at generation at.
type heavyMemo struct {
	room    [maxClassDims]HeavyRoom
	dims    int   // the dimensions read
	watch   uint8 // a bit per dimension where the source is cheaper than the dearest and dearer vreplicas wait
	engaged bool  // room is read, and apply keeps it (noteHeavy)
	// ample has a bit per dimension whose slack was more than a place by
	// budget when read: apply then spends budget at the most a change
	// can take (heavyWorst) instead of counting the change in room, and
	// marks the memo stale, to be read again, once it is spent.
	ample  uint8
	budget [maxClassDims]int64
	stale  bool
	at     uint64
	short  int64
	quiet  uint64 // at, when short is 0
}

// HeavyRoomShort is a bit per dimension (the first four) where the
// source is cheaper than the dearest, dearer vreplicas wait, and the
// heavy room's slack with this decision's changes is short of one place
// for a dearest vreplica (TakesHeavyRoom): what a score reading
// TakesHeavyRoom reads of the decision as a whole.
func (d *Decision) HeavyRoomShort() int64 {
	// Small enough to inline: a source without a cost ends here.
	if d.cheap == nil || d.heavy.at == d.gen {
		return d.heavy.short
	}
	return d.heavyRoomShort()
}

func (d *Decision) heavyRoomShort() int64 {
	m := &d.heavy
	m.at, m.short, m.quiet = d.gen, 0, d.gen
	if (!m.engaged || m.stale) && !d.engageHeavy() {
		return 0
	}
	for dim := range m.dims {
		if m.watch&^m.ample&(1<<dim) != 0 {
			if h := &m.room[dim]; h.Slack() < h.Fit.Dearest-h.Fit.Cheapest {
				m.short |= 1 << dim
			}
		}
	}
	if m.short != 0 {
		m.quiet = 0
	}
	return m.short
}

// engageHeavy reads the cluster's heavy room for the decision and counts
// its changes so far; apply counts the later ones (noteHeavy). It reports
// false for a decision the rule does not apply to.
func (d *Decision) engageHeavy() bool {
	hr, ok := d.res.(HeavyRoomCounter)
	if !ok {
		return false
	}
	m := &d.heavy
	m.dims, m.watch, m.ample, m.stale = min(len(d.cost), maxClassDims), 0, 0, false
	for dim := range m.dims {
		c := d.cost[dim]
		h := hr.HeavyRoom(dim, c)
		if c < h.Fit.Dearest && h.Fit.Dearest > h.Fit.Cheapest && h.Need > 0 {
			m.watch |= 1 << dim
		}
		for ord, n := range d.delta.all() {
			if n != 0 && !d.place(ord).known {
				h.count(0, 0, 0, 0, n) // no room there, as the cluster counts
			} else if n != 0 {
				free := int64(d.cluster.Free(ord))
				left := vsched.CostSum(h.Fit.Capacity, -d.res.ResourceUsed(ord, dim))
				h.count(free, left, free-int64(n), vsched.CostSum(left, -vsched.CostTimes(n, c)), n)
			}
		}
		m.room[dim] = h
		if dx := h.Fit.Dearest - h.Fit.Cheapest; m.watch&(1<<dim) != 0 && h.Slack() >= dx {
			m.ample |= 1 << dim
			m.budget[dim] = h.Slack() - dx
		}
	}
	m.engaged = true
	return true
}

// heavyWorst is the most n vreplicas placed (removed, when n is
// negative) can take from the slack: a place each, or for one placed on
// an empty pod a place less the pod's places against one pod fewer to
// open; removed, the last vreplica of a pod can take the pod's places
// (fewer than its slots) with it when no pod is left to open. One more
// each for the rounding of the pods to open.
func heavyWorst(h *HeavyRoom, n int32) int64 {
	dx := h.Fit.Dearest - h.Fit.Cheapest
	if n > 0 {
		return vsched.CostTimes(n, dx+1)
	}
	return vsched.CostTimes(-n, vsched.CostSum(vsched.CostTimes(saturate32(h.Fit.Slots), dx), 1))
}

// noteHeavy counts in the heavy room a change of delta vreplicas on the
// pod, before apply makes it. A pod the cluster does not know (gone with
// a scale-down) is no room, as the cluster counts it (its Free is 0): the
// change moves only the vreplicas waiting.
func (d *Decision) noteHeavy(ordinal int32, delta int32, known bool) {
	m := &d.heavy
	if m.stale {
		return
	}
	for dim := range m.dims {
		if m.ample&(1<<dim) != 0 {
			if m.budget[dim] = vsched.CostSum(m.budget[dim], -heavyWorst(&m.room[dim], delta)); m.budget[dim] < 0 {
				m.stale = true
				return
			}
		}
	}
	free := int64(d.Free(ordinal))
	for dim := range m.dims {
		if m.watch&^m.ample&(1<<dim) != 0 {
			if !known {
				d.heavy.room[dim].count(0, 0, 0, 0, delta)
				continue
			}
			left := d.ResourceFree(ordinal, dim)
			d.heavy.room[dim].count(free, left, free-int64(delta), vsched.CostSum(left, -costTimes(delta, d.cost[dim])), delta)
		}
	}
}

// count moves a pod of the heavy room from free slots and left of the
// resource to free2 and left2 by placing n vreplicas there (removing,
// when negative).
func (h *HeavyRoom) count(free, left, free2, left2 int64, n int32) {
	open, places := heavyOpen(h.Fit, free, left)
	open2, places2 := heavyOpen(h.Fit, free2, left2)
	h.Open += open2 - open
	h.Places = vsched.CostSum(h.Places, (places2-places)*(h.Fit.Dearest-h.Fit.Cheapest))
	h.Unplaced -= int64(n)
}

// heavyOpen is a pod's free slots and places for the dearest vreplicas
// as HeavyRoom counts them: none for a pod that holds nothing.
func heavyOpen(fit HeavyFit, free, left int64) (open, places int64) {
	if free >= fit.Slots {
		return 0, 0
	}
	open = max(0, free)
	return open, fit.Places(open, left)
}
