package descheduler

import "github.com/vsched/vsched"

// View is what splitting a source's placements reads of the cluster;
// *state.State implements it.
type View interface {
	// OrdinalOf is the ordinal of a pod of the StatefulSet.
	OrdinalOf(podName string) (int32, bool)
	// Replicas is the StatefulSet's size as decisions count it.
	Replicas() int32
	// Draining reports whether the pod's vreplicas should leave.
	Draining(ord int32) bool
}

// Split is a source's placements sorted by whether they may stay.
type Split struct {
	// Kept may stay where they are.
	Kept []vsched.Placement
	// Draining are on draining pods: they move where the profile finds
	// room, and stay where it finds none.
	Draining []vsched.Placement
	// Lost counts the vreplicas on ordinals at or above the replicas:
	// those pods are gone or going, and the vreplicas must be placed
	// again.
	Lost int32
}

// SplitPlacements splits ps against v. Kept is appended to buf[:0], so a
// caller splitting many sources can reuse one buffer. A placement naming
// no pod of the StatefulSet, or no vreplicas, is dropped (the state never
// holds one).
func SplitPlacements(v View, ps, buf []vsched.Placement) Split {
	out := Split{Kept: buf[:0]}
	replicas := v.Replicas()
	for _, p := range ps {
		ord, ok := v.OrdinalOf(p.PodName)
		switch {
		case !ok || p.VReplicas <= 0:
		case ord >= replicas:
			out.Lost += p.VReplicas
		case v.Draining(ord):
			out.Draining = append(out.Draining, p)
		default:
			out.Kept = append(out.Kept, p)
		}
	}
	return out
}

// LimitDrainMoves keeps on their draining pods the vreplicas one Schedule
// call must not move under the drain move limit. need is how many
// vreplicas the source wants beyond kept; draining vreplicas beyond need
// are surplus and are dropped rather than moved, so they do not count
// against the limit. The highest ordinals move first (compaction empties
// the top of the StatefulSet first); the part kept back comes from the
// lowest. fromDraining is sorted by ordinal, and what it returns is what
// may move.
func LimitDrainMoves(kept, fromDraining []vsched.Placement, need, limit int32) ([]vsched.Placement, []vsched.Placement) {
	moving := min(vsched.TotalVReplicas(fromDraining), need)
	keepBack := moving - limit
	if keepBack <= 0 {
		return kept, fromDraining
	}
	kept = append([]vsched.Placement(nil), kept...)
	rest := make([]vsched.Placement, 0, len(fromDraining))
	for _, p := range fromDraining {
		if keepBack > 0 {
			n := min(p.VReplicas, keepBack)
			q := p
			q.VReplicas = n
			kept = append(kept, q)
			keepBack -= n
			p.VReplicas -= n
		}
		if p.VReplicas > 0 {
			rest = append(rest, p)
		}
	}
	vsched.SortPlacements(kept)
	return kept, rest
}
