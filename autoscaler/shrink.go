package autoscaler

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/evictor"
)

// shrink writes a scale-down from current to shrinkTo, atomically with the
// scheduler's state (fenceShrink, then the write, then endShrink).
func (a *Autoscaler) shrink(ctx context.Context, dec *Report, set *appsv1.StatefulSet, current, shrinkTo int32, keep func(error)) {
	log := a.logger(ctx).With("statefulset", a.key.String())
	for ord, reason := range a.drainer.Marks() {
		if reason == evictor.ReasonCompaction && ord >= shrinkTo {
			dec.Reason = "compaction"
		}
	}
	to, why, prev := a.sched.FenceShrink(current, shrinkTo)
	if why != "" {
		if to >= current {
			dec.Action, dec.Target = ActionHold, current
			dec.Reason = "not shrinking: " + why
			return
		}
		dec.Target = to
		dec.Reason += fmt.Sprintf("; shrinking to %d only: %s", to, why)
		shrinkTo = to
	}
	ok, rv, err := a.writeScale(ctx, current, shrinkTo)
	a.sched.EndShrink(prev, shrinkTo, rv, err)
	switch {
	case errors.Is(err, errSizeChanged):
		dec.Action, dec.Target = ActionHold, current
		dec.Reason = "the StatefulSet's size changed meanwhile; deciding again next cycle"
	case err != nil:
		keep(fmt.Errorf("autoscaler: scaling StatefulSet %s to %d: %w", a.key, shrinkTo, err))
	case ok:
		dec.Written = true
		a.drainer.Forget(shrinkTo)
		a.event(set, corev1.EventTypeNormal, ReasonScaledDown, "scaled from %d to %d replicas: %s", current, shrinkTo, dec.Reason)
		a.metrics.change(ctx, "down")
		log.Infow("vsched autoscaler: scaled down", "from", current, "to", shrinkTo, "reason", dec.Reason)
	}
}
