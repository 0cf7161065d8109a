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

// reasonsLocked are the reasons of the marks of ords. Called with d.mu
// held.
func (d *Drainer) reasonsLocked(ords []int32) []string {
	out := make([]string, len(ords))
	for i, o := range ords {
		out[i] = d.marks[o].reason
	}
	return out
}

// rememberAdopted tells the scheduler of the marks Adopt took over, with
// their reasons, as Mark does: a hot pod must be known hot from the first
// decision, before the informer shows why.
func (d *Drainer) rememberAdopted(ords []int32, reasons []string) {
	for i, o := range ords {
		d.markInMemory(o, reasons[i])
	}
}
