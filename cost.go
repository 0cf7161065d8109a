package vsched

import (
	"fmt"
	"math"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// VReplicaCoster is implemented by a VPod whose vreplicas are not alike:
// one of them costs the resources GetVReplicaCost returns (memory, CPU or
// any named resource, as a container's requests name them). Where the
// StatefulSet's pods have a capacity in a resource (statefulset.Config's
// PodResources, or the pod template's limits or requests), the scheduler
// keeps every pod within it as well as within its slots. A source that
// does not implement it, or returns an empty list, costs nothing but its
// slots, exactly as before costs existed.
//
// Values must be at least 0 and at most MaxCost; a resource the pods have
// no capacity in is not counted.
type VReplicaCoster interface {
	GetVReplicaCost() corev1.ResourceList
}

// VReplicaCostChecker is implemented by a VReplicaCoster whose declaration
// can be malformed, such as an annotation (CostAnnotation): Schedule
// refuses the source with the error VReplicaCostError returns, rather than
// placing it as if it cost nothing.
type VReplicaCostChecker interface {
	VReplicaCostError() error
}

const (
	// MaxCost bounds one resource of one vreplica's cost, in milli-units
	// (2^50 milli-bytes is 1 PiB/1000, about 1 TiB of memory; for CPU
	// about 1.1e12 cores). Within it a pod's use over every source fits an
	// int64 for all practical purposes, and the sums saturate (CostSum)
	// rather than wrap when it does not.
	MaxCost int64 = 1 << 50
	// CostAnnotation is the annotation through which the sample source
	// (and any source that chooses to) declares one vreplica's cost:
	// "memory=512Mi,cpu=250m" (ParseVReplicaCost).
	CostAnnotation = "vsched.dev/vreplica-cost"
)

// ParseVReplicaCost reads a cost written as comma-separated name=quantity
// pairs, such as "memory=512Mi,cpu=250m" (spaces around items are
// ignored; "" is no cost). The item MeasuredCost is skipped. A name given twice, a malformed quantity, a
// negative one and one above MaxCost are errors naming the item.
func ParseVReplicaCost(s string) (corev1.ResourceList, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := corev1.ResourceList{}
	for i, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == MeasuredCost {
			continue // not a quantity: CostDeclaresMeasured reads it
		}
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return nil, fmt.Errorf("cost item %d (%q): want name=quantity, such as memory=512Mi", i, item)
		}
		q, err := resource.ParseQuantity(value)
		if err != nil {
			return nil, fmt.Errorf("cost item %d (%q): %v", i, item, err)
		}
		if _, dup := out[corev1.ResourceName(name)]; dup {
			return nil, fmt.Errorf("cost item %d: resource %q is given twice", i, name)
		}
		out[corev1.ResourceName(name)] = q
	}
	if err := ValidateVReplicaCost(out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil // "measured" alone declares nothing
	}
	return out, nil
}

// ValidateVReplicaCost checks every value of a cost against its bounds:
// at least 0 and at most MaxCost milli-units. Names are reported sorted.
func ValidateVReplicaCost(cost corev1.ResourceList) error {
	names := make([]string, 0, len(cost))
	for name := range cost {
		names = append(names, string(name))
	}
	sort.Strings(names)
	for _, name := range names {
		q := cost[corev1.ResourceName(name)]
		if q.Sign() < 0 {
			return fmt.Errorf("cost of %s: %s is negative", name, q.String())
		}
		if q.Cmp(*resource.NewMilliQuantity(MaxCost, q.Format)) > 0 {
			return fmt.Errorf("cost of %s: %s is more than the most one vreplica may cost (vsched.MaxCost: 2^50 milli-units, about 1Ti of memory)", name, q.String())
		}
	}
	return nil
}

// VReplicaCost returns the cost the source declares per vreplica, nil
// when it declares none (it is no VReplicaCoster, or returns an empty
// list).
func VReplicaCost(vpod VPod) corev1.ResourceList {
	if c, ok := vpod.(VReplicaCoster); ok {
		if l := c.GetVReplicaCost(); len(l) > 0 {
			return l
		}
	}
	return nil
}

// CostTimes is n times a cost of milli milli-units, saturating at
// math.MaxInt64 (or math.MinInt64 for a negative n) instead of wrapping.
func CostTimes(n int32, milli int64) int64 {
	if n == 0 || milli == 0 {
		return 0
	}
	p := int64(n) * milli
	if p/int64(n) != milli {
		if (n < 0) != (milli < 0) {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return p
}

// CostSum is a + b, saturating at the int64 bounds instead of wrapping.
func CostSum(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}
