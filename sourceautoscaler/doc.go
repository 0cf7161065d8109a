// Package sourceautoscaler decides each source's vreplicas from a demand
// signal (consumer lag, events per second) and writes them: the level
// above the scheduler, which places whatever count a source asks for, and
// the pod autoscaler, which sizes the StatefulSet for it. embedkit wires the
// levels together.
//
// Each cycle the leader asks every signal.Provider once for all the
// sources it serves that are due (whatever their number), runs the
// decision of package decision for each, and writes the counts that
// changed through a Writer: the source's scale subresource, or a callback.
// docs/source-autoscaler.md gives the formulas and every knob.
package sourceautoscaler
