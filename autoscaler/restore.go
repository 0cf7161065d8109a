package autoscaler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReasonStatefulSetRestored is the Event reason of a StatefulSet created
// again (under the same name, as an upgrade does) with fewer replicas than
// the pods its sources hold, and sized back to them.
const ReasonStatefulSetRestored = "StatefulSetRestored"

// restore sizes a StatefulSet that came back smaller than the pods its
// sources hold back to them (to): the sources keep their placements, and
// the scheduler decides again once the size is written. It goes before
// every limit: the pods were running before the StatefulSet was deleted,
// and a smaller size would move or drop what they hold.
func (a *Autoscaler) restore(ctx context.Context, dec Report, to int32) (Report, error) {
	set, _, err := a.readStatefulSet(ctx)
	if err != nil {
		return hold(dec, fmt.Sprintf("reading the StatefulSet failed (%v); holding the current size", err))
	}
	from := int32(1)
	if set.Spec.Replicas != nil {
		from = *set.Spec.Replicas
	}
	why := fmt.Sprintf("the StatefulSet was created again with %d replica(s); restoring the %d pod(s) its sources hold", from, to)
	dec.Current, dec.Desired, dec.Target = from, to, to
	dec.Action, dec.Reason = ActionScaleUp, why
	if set.Annotations[AnnotationPaused] == "true" || a.config().RecommendOnly {
		dec.RecommendOnly = true
		return dec, nil
	}
	// A restore only grows: the cycle's read may lag behind a size the
	// API server already holds, and writing to from it would shrink past
	// pods that hold vreplicas.
	sc, err := a.cfg.Client.AppsV1().StatefulSets(a.key.Namespace).GetScale(ctx, a.key.Name, metav1.GetOptions{})
	if err != nil {
		return dec, fmt.Errorf("autoscaler: restoring StatefulSet %s to %d: %w", a.key, to, err)
	}
	if have := sc.Spec.Replicas; have >= to {
		a.sched.Grown(have, sc.ResourceVersion)
		dec.Current, dec.Target, dec.Action = have, have, ActionNone
		dec.Reason = fmt.Sprintf("the StatefulSet has %d replica(s) already, covering the %d pod(s) its sources hold", have, to)
		return dec, nil
	}
	ok, rv, err := a.writeScale(ctx, sc.Spec.Replicas, to)
	if err != nil {
		return dec, fmt.Errorf("autoscaler: restoring StatefulSet %s to %d: %w", a.key, to, err)
	}
	a.sched.Grown(to, rv)
	if ok {
		dec.Written = true
		a.event(set, corev1.EventTypeNormal, ReasonStatefulSetRestored, "scaled from %d to %d replicas: %s", from, to, why)
		a.metrics.change(ctx, "up")
		a.logger(ctx).Infow("vsched autoscaler: restored the StatefulSet's size", "statefulset", a.key.String(), "from", from, "to", to)
	}
	return dec, nil
}
