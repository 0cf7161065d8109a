package statefulset

import (
	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
)

// limitDrainMoves is descheduler.LimitDrainMoves for the draining pods that
// still run their vreplicas. The vreplicas on a draining pod that runs
// nothing (its node lost, or no node: state.PodUnavailableSince) are
// evacuated whole: moving them disturbs nothing, and leaving them there
// leaves them down for another cycle. need is how many vreplicas the source
// wants beyond split.Kept. Called with the state locked.
func (s *Scheduler) limitDrainMoves(split descheduler.Split, need, limit int32) (kept, draining []vsched.Placement) {
	var evacuate, running []vsched.Placement
	for _, p := range split.Draining {
		if ord, ok := s.st.OrdinalOf(p.PodName); ok && !s.st.PodUnavailableSince(ord).IsZero() {
			evacuate = append(evacuate, p)
		} else {
			running = append(running, p)
		}
	}
	if len(evacuate) == 0 {
		return descheduler.LimitDrainMoves(split.Kept, split.Draining, need, limit)
	}
	kept, running = descheduler.LimitDrainMoves(split.Kept, running, need-vsched.TotalVReplicas(evacuate), limit)
	draining = append(evacuate, running...)
	vsched.SortPlacements(draining)
	return kept, draining
}
