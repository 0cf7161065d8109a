package statefulset

import (
	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
)

// A decision made again from a version its source's reservation is based
// on (a controller retrying after a failed write, or reading from a cache
// that has not delivered the write yet) may follow a first answer that was
// written: of the writes based on one version only one lands, and the
// state learns which only when it sees a newer version. So the decision
// keeps every vreplica the reservation holds on a pod that still exists:
// moved off it, the state would stop counting a pod a written status may
// hold, and a shrink or another source could take it (issue 23). Moves off
// draining pods, and a Rebalancer's, wait for the next version; vreplicas
// beyond the replicas move as always (their pods are gone or going), and
// pending ones are placed.

// keepReserved keeps the reservation's vreplicas on draining pods where
// they are, for a decision made again from the same version.
func keepReserved(split descheduler.Split) descheduler.Split {
	if len(split.Draining) == 0 {
		return split
	}
	split.Kept = append(split.Kept, split.Draining...)
	vsched.SortPlacements(split.Kept)
	split.Draining = nil
	return split
}
