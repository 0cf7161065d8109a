package descheduler

import (
	"time"

	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/state"
)

// Drain is a drain wanted for another reason than compaction.
type Drain struct {
	// Reason is evictor.ReasonUnavailable or evictor.ReasonOverCapacity.
	Reason string
	// Excess is, over capacity, how many vreplicas the pod holds beyond it.
	Excess int32
}

// Drains are the drains wanted for other reasons than compaction, by
// ordinal: pods whose node has been lost, or that no node has taken, for
// grace or longer (state.Reader.PodUnavailableSince), and pods over
// capacity. marks are the drains the evictor holds (ordinal to reason); a
// pod someone else drained is drained already.
func Drains(base state.Reader, marks map[int32]string, now time.Time, grace time.Duration) map[int32]Drain {
	wants := map[int32]Drain{}
	capacity := base.Capacity()
	for ord := int32(0); ord < base.Replicas() && ord < base.NumPods(); ord++ {
		used := base.Used(ord)
		if base.Draining(ord) && !evictor.Owned(marks[ord]) {
			continue
		}
		// A pod on a lost node stays marked until the node is back,
		// emptied or not, so its mark is not written again and again.
		if since := base.PodUnavailableSince(ord); !since.IsZero() && now.Sub(since) >= grace &&
			(used > 0 || marks[ord] == evictor.ReasonUnavailable) {
			wants[ord] = Drain{Reason: evictor.ReasonUnavailable}
		} else if used > capacity {
			wants[ord] = Drain{Reason: evictor.ReasonOverCapacity, Excess: used - capacity}
		}
	}
	return wants
}

// CompactionHorizonCycles bounds one compaction round to the vreplicas the
// per-cycle move budget moves in this many cycles. A round drains every
// pod it will remove at once, so nothing it moves lands on a pod drained
// later in the same round; bounding it keeps the simulation that validates
// it, and the capacity drained at once, small.
const CompactionHorizonCycles = 10

// LowestSize is the lowest size a scale-down may consider this cycle.
// Without compaction only empty pods may go; with it, a round moves at most
// the horizon (maxMovesPerCycle times CompactionHorizonCycles), and a round
// in progress (pods drained for compaction still holding vreplicas)
// completes before the next one starts, so nothing it moved has to move
// again.
func LowestSize(base state.Reader, marks map[int32]string, compacting bool, maxMovesPerCycle int32) int32 {
	current := base.Replicas()
	used := make([]int32, current)
	for ord := range used {
		used[ord] = base.Used(int32(ord))
	}
	var floor int32
	horizon := int64(0)
	if compacting {
		horizon = int64(maxMovesPerCycle) * CompactionHorizonCycles
		for ord, reason := range marks {
			if reason == evictor.ReasonCompaction && ord < current && used[ord] > 0 && (floor == 0 || ord < floor) {
				floor = ord
			}
		}
	}
	return lowestSize(used, current, floor, horizon)
}

// lowestSize is LowestSize's search: not below floor, and not so low that
// the pods it removes hold more than horizon vreplicas (used[o] is what
// ordinal o holds); horizon < 0 means no such bound, 0 that only empty pods
// may go.
func lowestSize(used []int32, current, floor int32, horizon int64) int32 {
	low := max(floor, 0)
	if horizon < 0 {
		return low
	}
	var moved int64
	r := current
	for r > low {
		u := int64(0)
		if int(r-1) < len(used) {
			u = int64(used[r-1])
		}
		if moved+u > horizon {
			break
		}
		moved += u
		r--
	}
	return r
}

// CompactionDrains are the pods a compaction to desired pods drains: every
// ordinal from desired up to the replicas at once, so that what moves goes
// below desired and never to a pod drained later, except those drained
// already (marked by the evictor, in marks, or by someone else). moving is
// what the removed pods hold.
func CompactionDrains(base state.Reader, desired int32, marks map[int32]string) (drain []int32, moving int64) {
	for ord := desired; ord < base.Replicas(); ord++ {
		moving += int64(base.Used(ord))
		if marks[ord] != "" || base.Draining(ord) {
			continue
		}
		drain = append(drain, ord)
	}
	return drain, moving
}
