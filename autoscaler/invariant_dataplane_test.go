package autoscaler

import (
	"fmt"
	"slices"
)

// The data plane as it behaves in the field (issue 20), as steps of
// TestInvariantUnderLag: a source deleted without any scheduler hearing of
// it, and a pod that no node takes.

// sourceOrPodFault deletes a source (with Forget, half of the time), or
// deletes one without Forget, or leaves a pod unbound.
func (w *lagWorld) sourceOrPodFault() {
	switch w.rng.Intn(4) {
	case 0, 1:
		w.deleteSource()
	case 2:
		w.deleteWithoutForget()
	default:
		w.neverBind()
	}
}

// deleteWithoutForget deletes a source without calling Forget on any
// scheduler, as when the delete event is missed across a restart; then,
// one time in two, the leader resyncs, and must have forgotten every
// source the API server no longer holds (checkMissedDeletes).
func (w *lagWorld) deleteWithoutForget() {
	k := lagKey(w.rng.Intn(lagSources))
	if err := w.src.Delete(k); err != nil {
		return
	}
	w.count("delete without Forget " + k.Name)
	if w.rng.Intn(2) == 0 {
		w.count("resync")
		w.checkMissedDeletes(w.leader())
	}
}

// checkMissedDeletes resyncs the instance and checks that a missed delete
// costs at most one resync: once a resync has succeeded from a lister that
// does not lag, the instance knows no source the API server lacks, except
// one whose decision is younger than the reservation TTL (it may be new and
// not listed yet).
func (w *lagWorld) checkMissedDeletes(inst *lagInstance) {
	if err := inst.s.Resync(w.ctx); err != nil || w.src.Frozen() {
		return
	}
	now := w.c.Clock().Now()
	for _, sv := range inst.s.Sources() {
		if _, err := w.src.Get(sv.Key); err == nil {
			continue
		}
		// A decision may place nothing: ReservedAt, not Reserved, says
		// there is one.
		if !sv.ReservedAt.IsZero() && now.Sub(sv.ReservedAt) < lagTTL {
			continue
		}
		w.failf("missed delete: %s still counts %s [%s] after a resync; the API server no longer holds it",
			inst.name, sv.Key.Name, short(sv.Committed))
	}
}

// neverBind leaves a pod below spec.replicas without a node, as when no
// node satisfies its constraints: it stays so until a scale-down removes it
// (a scale-up creates it again, bound). One pod at a time: the pods left
// unbound before are bound again first, so that the cluster keeps room.
func (w *lagWorld) neverBind() {
	if err := w.c.BindPending(); err != nil {
		w.t.Fatal(err)
	}
	ords, err := w.c.PodOrdinals()
	if err != nil {
		w.t.Fatal(err)
	}
	spec := w.specReplicas()
	ords = slices.DeleteFunc(ords, func(o int32) bool { return o >= spec })
	if len(ords) == 0 {
		return
	}
	ord := ords[w.rng.Intn(len(ords))]
	w.count(fmt.Sprintf("never bind adapter-%d", ord))
	if err := w.c.UnbindPod(ord); err != nil {
		w.t.Fatal(err)
	}
}
