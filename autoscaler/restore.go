package autoscaler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReasonStatefulSetRestored is the Event reason of a StatefulSet sized back
// to the pods its sources hold: created again (under the same name, as an
// upgrade does) with fewer replicas, or scaled below them by a write
// vsched did not make (an apply of a manifest's replicas in place).
const ReasonStatefulSetRestored = "StatefulSetRestored"

// restore sizes a StatefulSet that came back smaller than the pods its
// sources hold, or was scaled down below them from outside
// (statefulset/outside.go), back to them (to): the sources keep their
// placements, and the scheduler decides again once the size is written.
// It goes before every limit: the pods were running before, and a smaller
// size would move or drop what they hold.
func (a *Autoscaler) restore(ctx context.Context, dec Report, to int32) (Report, error) {
	set, _, err := a.readStatefulSet(ctx)
	if err != nil {
		return hold(dec, fmt.Sprintf("reading the StatefulSet failed (%v); holding the current size", err))
	}
	from := int32(1)
	if set.Spec.Replicas != nil {
		from = *set.Spec.Replicas
	}
	outside := a.sched.ScaledDownFromOutside()
	why := restoreWhy(outside, from, to)
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
	if outside && sc.Spec.Replicas != from {
		// The informer's copy lags the scale-down (a new leader's
		// first cycle): the API server's size is the one replaced.
		from = sc.Spec.Replicas
		why = restoreWhy(outside, from, to)
		dec.Current, dec.Reason = from, why
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
		a.logger(ctx).Infow("vsched autoscaler: restored the StatefulSet's size", "statefulset", a.key.String(), "from", from, "to", to,
			"scaledDownFromOutside", outside)
	}
	return dec, nil
}

// restoreWhy says why a restore sizes the StatefulSet from from to to.
func restoreWhy(outside bool, from, to int32) string {
	if outside {
		return fmt.Sprintf("the StatefulSet was scaled to %d replica(s) from outside vsched, below the %d pod(s) its sources hold; restoring them", from, to)
	}
	return fmt.Sprintf("the StatefulSet was created again with %d replica(s); restoring the %d pod(s) its sources hold", from, to)
}
