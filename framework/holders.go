package framework

import "slices"

// What a decision keeps current about the pods holding its source, change by
// change, so that a step reads it without walking every holder: a source of
// thousands of vreplicas holds hundreds of pods, and a walk per step made a
// decision cost the square of the vreplicas it changed (issue 21).
//
//   - holders: every pod holding the source, ascending;
//   - roomHolders: the candidate holders with free capacity, ascending (the
//     only holders a placing step can choose, and few while pods fill up
//     before others open);
//   - podCounts: how many candidate holders hold each count (a countHist:
//     an entry per distinct value, so few), which PodStats reads;
//   - room.touched: the nodes of the holders and of the pods changed, which
//     only grows during a decision;
//   - onPodAt: onPod again, indexed by ordinal, once the source holds
//     denseMin pods or more: OnPod, read for every candidate by most
//     plugins at every step, then indexes a slice instead of hashing into a
//     map of hundreds of pods (a third of removing 10,000's time before).

// denseMin is the fewest pods held for which OnPod reads onPodAt: a slice
// up to the highest ordinal held (at most MaxReplicas int32s) is worth it
// only for a large source.
const denseMin = 64

// countN is how many candidate holders hold v vreplicas.
type countN struct {
	v int32
	n int
}

// insertSorted adds v to the ascending s unless it is there.
func insertSorted(s []int32, v int32) []int32 {
	i, found := slices.BinarySearch(s, v)
	if found {
		return s
	}
	return slices.Insert(s, i, v)
}

// deleteSorted removes v from the ascending s if it is there.
func deleteSorted(s []int32, v int32) []int32 {
	if i, found := slices.BinarySearch(s, v); found {
		return slices.Delete(s, i, i+1)
	}
	return s
}

// indexHolders builds the holder indexes from onPod, once the base
// placements are in.
func (d *Decision) indexHolders() {
	d.holders = d.holders[:0]
	for ord := range d.onPod {
		d.holders = append(d.holders, ord)
	}
	slices.Sort(d.holders)
	d.roomHolders = d.roomHolders[:0]
	d.podCounts.reset()
	d.room.touched = d.room.touched[:0]
	for _, ord := range d.holders {
		if !d.cluster.IsCandidate(ord) {
			continue
		}
		d.podCounts.add(d.onPod[ord], 1)
		if d.Free(ord) > 0 {
			d.roomHolders = append(d.roomHolders, ord)
		}
	}
	for _, ord := range d.holders {
		if n := d.place(ord).node; n >= 0 {
			d.room.touched = insertSorted(d.room.touched, n)
		}
	}
	if len(d.onPod) >= denseMin {
		d.densify(0)
	}
}

// densify builds onPodAt from onPod, with room for n ordinals at least.
func (d *Decision) densify(n int32) {
	hi := n - 1
	for ord := range d.onPod {
		hi = max(hi, ord)
	}
	d.onPodAt = make([]int32, hi+1)
	for ord, n := range d.onPod {
		if ord >= 0 {
			d.onPodAt[ord] = n
		}
	}
}

// noteDense records in onPodAt that the pod now holds count (0 or less:
// none), or builds onPodAt once the source holds denseMin pods.
func (d *Decision) noteDense(ord, count int32) {
	switch {
	case d.onPodAt == nil:
		if len(d.onPod) >= denseMin {
			d.densify(0)
		}
	case ord >= 0:
		if int(ord) >= len(d.onPodAt) {
			d.onPodAt = append(d.onPodAt, make([]int32, int(ord)+1-len(d.onPodAt))...)
		}
		d.onPodAt[ord] = max(count, 0)
	}
}

// noteHolder updates the holder indexes after the pod's count went from
// before to after and its free capacity from freeBefore.
func (d *Decision) noteHolder(ord int32, p podPlace, before, after, freeBefore, freeAfter int32) {
	if before <= 0 && after > 0 {
		d.holders = insertSorted(d.holders, ord)
	} else if before > 0 && after <= 0 {
		d.holders = deleteSorted(d.holders, ord)
	}
	if p.node >= 0 {
		d.touch(p.node)
	}
	if !p.candidate { // Cluster.IsCandidate, as the decision keeps it
		return
	}
	switch {
	case before > 0 && after > 0:
		d.podCounts.move(before, after, 1)
	case before > 0:
		d.podCounts.add(before, -1)
	case after > 0:
		d.podCounts.add(after, 1)
	}
	wasRoom, isRoom := before > 0 && freeBefore > 0, after > 0 && freeAfter > 0
	if !wasRoom && isRoom {
		d.roomHolders = insertSorted(d.roomHolders, ord)
	} else if wasRoom && !isRoom {
		d.roomHolders = deleteSorted(d.roomHolders, ord)
	}
}

// RoomHolders lists, ascending, the candidate pods holding the source that
// have free capacity. Callers must not modify the slice, and it is only
// valid until the decision changes.
func (d *Decision) RoomHolders() []int32 { return d.roomHolders }

// HolderPodStats summarises the source's vreplicas over the candidate pods
// holding it (PodStats without the eligible pods that hold none): what a
// pod spread ranks against once the source may use no further pod.
func (d *Decision) HolderPodStats() DomainStats {
	return d.podCounts.stats(0)
}
