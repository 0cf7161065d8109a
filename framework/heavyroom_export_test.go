package framework

// ApplyForTest places (removes, when negative) delta vreplicas of the
// decision's source on the pod, as the runtime does.
func (d *Decision) ApplyForTest(ordinal, delta int32) { d.apply(ordinal, delta) }

// FreshHeavyRoomShort is HeavyRoomShort read afresh from the cluster, with
// every change of the decision counted exactly: what the memo kept by
// apply (and its budget) must agree with.
func (d *Decision) FreshHeavyRoomShort() int64 {
	fresh := *d // the copy's memo is its own; nothing else is written
	fresh.heavy = heavyMemo{}
	return fresh.HeavyRoomShort()
}

// KeptHeavyRoomForTest is the heavy room the decision keeps in the
// dimension, and whether it keeps it by counting (not by budget, nor
// stale): then it must equal the cluster's reading with the changes made.
func (d *Decision) KeptHeavyRoomForTest(dim int) (HeavyRoom, bool) {
	d.HeavyRoomShort()
	m := &d.heavy
	return m.room[dim], m.engaged && !m.stale && m.watch&^m.ample&(1<<dim) != 0
}
