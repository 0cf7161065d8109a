package vsched

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// MeasuredCost is the item of a cost declaration (CostAnnotation) by which
// a source asks for its cost per vreplica to be measured rather than
// declared: "measured" alone, or beside declared resources
// ("measured,cpu=250m"), which always win over the measurement.
// ParseVReplicaCost skips it; CostDeclaresMeasured finds it.
const MeasuredCost = "measured"

// VReplicaCostMeasurer is implemented by a VPod that may opt into a
// measured cost per vreplica (docs/costs.md#measured-costs): where
// MeasuresVReplicaCost is true and the scheduler has estimates
// (statefulset.Config.CostEstimates), each resource the source does not
// declare is counted at its estimate.
type VReplicaCostMeasurer interface {
	MeasuresVReplicaCost() bool
}

// CostEstimates gives the sources' measured costs per vreplica
// (costestimate.Measured implements it). EstimatedCost is the estimate in
// force for the source, nil when there is none (never measured, or the
// measurements stopped too long ago). It is called under the scheduler's
// state lock: it must be cheap, must not block, and must be safe for
// concurrent use. Callers must not modify the list.
type CostEstimates interface {
	EstimatedCost(key types.NamespacedName) corev1.ResourceList
}

// MeasuresVReplicaCost reports whether the source opts into a measured
// cost (VReplicaCostMeasurer).
func MeasuresVReplicaCost(vpod VPod) bool {
	m, ok := vpod.(VReplicaCostMeasurer)
	return ok && m.MeasuresVReplicaCost()
}

// EffectiveVReplicaCost is the cost per vreplica the scheduler counts for
// a source: what it declares (VReplicaCost), and, when it opts into a
// measured cost and est has an estimate for it, the estimate of every
// resource it does not declare. Without an estimate it is the declared
// cost alone (nil: the source costs its slot). A source that does not opt
// in pays one type assertion more than VReplicaCost.
func EffectiveVReplicaCost(vpod VPod, est CostEstimates) corev1.ResourceList {
	declared := VReplicaCost(vpod)
	if est == nil || !MeasuresVReplicaCost(vpod) {
		return declared
	}
	measured := est.EstimatedCost(vpod.GetKey())
	if len(measured) == 0 {
		return declared
	}
	out := make(corev1.ResourceList, len(declared)+len(measured))
	for name, q := range measured {
		out[name] = q
	}
	for name, q := range declared {
		out[name] = q
	}
	return out
}

// CostDeclaresMeasured reports whether a cost declaration, in
// CostAnnotation's format, has the item MeasuredCost.
func CostDeclaresMeasured(s string) bool {
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == MeasuredCost {
			return true
		}
	}
	return false
}
