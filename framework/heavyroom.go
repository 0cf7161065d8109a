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
	beyond := vsched.CostSum(left, -vsched.CostTimes(saturate32(free), h.Cheapest))
	return max(0, min(free, beyond/dx))
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
// a source without a cost, on a cluster that is no HeavyRoomCounter, and
// where Strands is (a grouped profile without a costed variant).
func (d *Decision) TakesHeavyRoom(ordinal int32) bool {
	hr := d.heavyRoom()
	if hr == nil {
		return false
	}
	free := int64(d.Free(ordinal))
	if free <= 0 {
		return false
	}
	for dim, c := range d.cost {
		h, ok := d.heavyFor(hr, dim, c)
		if !ok {
			continue
		}
		left := d.ResourceFree(ordinal, dim)
		if h.Fit.Places(free-1, vsched.CostSum(left, -c)) < h.Fit.Places(free, left) && d.heavyShort(dim, h) {
			return true
		}
	}
	return false
}

// HeavyRoomShort is a bit per dimension (the first 64) where the heavy
// room's slack, with this decision's changes, is short of one place for
// the dearest vreplicas (TakesHeavyRoom): what a score reading
// TakesHeavyRoom reads of the decision as a whole.
func (d *Decision) HeavyRoomShort() int64 {
	hr := d.heavyRoom()
	if hr == nil {
		return 0
	}
	var short int64
	for dim, c := range d.cost[:min(len(d.cost), 64)] {
		if h, ok := d.heavyFor(hr, dim, c); ok && d.heavyShort(dim, h) {
			short |= 1 << dim
		}
	}
	return short
}

// heavyRoom is the cluster's HeavyRoomCounter for a decision that
// weighs stranding (Strands), nil otherwise.
func (d *Decision) heavyRoom() HeavyRoomCounter {
	if d.cheap == nil {
		return nil
	}
	hr, _ := d.res.(HeavyRoomCounter)
	return hr
}

// heavyFor is the heavy room for the source in dimension dim, where it
// costs c; false when it is not cheaper than the dearest, or nothing
// dearer waits.
func (d *Decision) heavyFor(hr HeavyRoomCounter, dim int, c int64) (HeavyRoom, bool) {
	h := hr.HeavyRoom(dim, c)
	return h, c < h.Fit.Dearest && h.Fit.Dearest > h.Fit.Cheapest && h.Need > 0
}

// heavyShort reports whether the heavy room's slack, with this decision's
// changes (the cluster shows the pods as they were), is short of one
// place for a dearest vreplica.
func (d *Decision) heavyShort(dim int, h HeavyRoom) bool {
	dx := h.Fit.Dearest - h.Fit.Cheapest
	for ord, n := range d.delta.all() {
		if n == 0 {
			continue
		}
		was := int64(d.cluster.Free(ord))
		wasOpen, wasPlaces := heavyOpen(h.Fit, was, vsched.CostSum(h.Fit.Capacity, -d.res.ResourceUsed(ord, dim)))
		isOpen, isPlaces := heavyOpen(h.Fit, int64(d.Free(ord)), d.ResourceFree(ord, dim))
		h.Open += isOpen - wasOpen
		h.Places = vsched.CostSum(h.Places, (isPlaces-wasPlaces)*dx)
		h.Unplaced -= int64(n)
	}
	return h.Slack() < dx
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
