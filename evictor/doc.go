// Package evictor is the drain protocol. It evicts vreplicas from pods, in
// the sense of Knative's scheduler (whose "evictor" moves a vreplica off
// a pod), never pods: no pod is deleted or evicted through the API. The
// Drainer marks pods draining, so the scheduler stops placing on them, and
// calls the embedding controller's RequeueFunc for the sources that hold
// vreplicas there, so each source's next Schedule call moves them to other
// pods through the normal profile. What to drain, and how much to move per
// cycle, the autoscaler decides; this package only carries it out.
//
// The protocol has one home here: its annotation (DefaultAnnotation) and
// the values it writes (ReasonCompaction, ReasonUnavailable,
// ReasonOverCapacity, Owned), marking and unmarking (Drainer.Mark, Unmark,
// Forget), adoption by a new leader (Reset, Adopt), the requeue
// (RequeueFunc, Drainer.Requeue, Move) and the scheduler's side of it
// (DrainMemory). The other packages only use it: state reads the
// annotation and keeps the memory DrainMemory records into; descheduler
// decides which pods to drain and which sources to requeue; the autoscaler
// runs a Drainer once per cycle. The package imports none of them.
//
// The protocol, "drain then move", never deletes a vreplica before its
// replacement is decided: Schedule returns the source's new placements
// without the drained ones in a single result, which the controller writes
// to the source's status in one update.
//
//  1. Mark. The pod gets the draining annotation (evictor.DefaultAnnotation,
//     "vsched.dev/draining") with the reason as its value: "compaction",
//     "unavailable", "over-capacity" or "hot". The scheduler's state reads the
//     annotation through its pod informer, and the Drainer also records the
//     mark in the scheduler's memory (DrainMemory.MarkDraining), so a pod
//     recreated without the annotation stays draining, and the mark is in
//     force before the informer delivers the annotation (with its reason,
//     for a scheduler that is also a ReasonMemory).
//  2. Requeue. The Drainer calls Config.Requeue, the controller's
//     RequeueFunc, for each source with vreplicas on a marked pod, within a
//     per-cycle budget (planned by package
//     descheduler). The controller requeues the source; it
//     must not call Schedule from inside the callback.
//  3. Move. The controller's next Schedule of the source moves at most the
//     scheduler's per-source limit of its vreplicas off draining pods
//     (statefulset.Config.DrainMoveLimit); what finds no room elsewhere stays
//     where it is. The controller writes the result to the source's status.
//  4. Release. Once no committed or reserved placement is left on a pod,
//     the autoscaler may shrink the StatefulSet past it, and the Drainer
//     forgets the marks of the removed ordinals. A drain that is no longer
//     wanted (demand came back, the node recovered, capacity was raised) is
//     cancelled with Unmark, which removes the annotation.
//
// Only annotation values the evictor writes (Owned) are ever removed by it:
// a pod an operator drained by hand ("true") stays drained.
//
// A new leader calls Reset and then Adopt, which takes over every mark its
// predecessor left in the pods' annotations; the autoscaler then resumes or
// cancels the drain on its first cycle.
//
// A stray pod, whose ordinal is far above the StatefulSet's replicas
// (DrainMemory.Tracks), is never adopted nor marked: it is not the
// StatefulSet's, and a drain of it would end with its annotation removed.
package evictor
