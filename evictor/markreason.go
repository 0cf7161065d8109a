package evictor

// ReasonMemory is a DrainMemory that also remembers why a pod drains, at
// once, before the informer shows the annotation: a hot pod's shed moves
// only its plan, and the scheduler must know the pod is hot (not drained
// for all it holds) from the first decision after the mark.
// *statefulset.Scheduler implements it.
type ReasonMemory interface {
	MarkDrainingFor(ord int32, reason string) bool
}

// markInMemory records the mark in the scheduler's memory, with its reason
// where the scheduler keeps it.
func (d *Drainer) markInMemory(ord int32, reason string) bool {
	if m, ok := d.cfg.Scheduler.(ReasonMemory); ok {
		return m.MarkDrainingFor(ord, reason)
	}
	return d.cfg.Scheduler.MarkDraining(ord)
}
