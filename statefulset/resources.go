package statefulset

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched"
)

// TemplateResources is what one pod of the StatefulSet can hold in each
// resource, read from its pod template: per container, the limit of a
// resource when it sets one (the bound the kubelet enforces: over its
// memory limit a container is killed), else its request; summed over the
// containers (init containers, which have finished before the adapter
// runs, are not counted). nil when no container sets any.
func TemplateResources(set *appsv1.StatefulSet) corev1.ResourceList {
	if set == nil {
		return nil
	}
	var out corev1.ResourceList
	add := func(name corev1.ResourceName, q resource.Quantity) {
		if out == nil {
			out = corev1.ResourceList{}
		}
		sum := out[name]
		sum.Add(q)
		out[name] = sum
	}
	for _, c := range set.Spec.Template.Spec.Containers {
		for name, q := range c.Resources.Requests {
			if _, limited := c.Resources.Limits[name]; !limited {
				add(name, q)
			}
		}
		for name, q := range c.Resources.Limits {
			add(name, q)
		}
	}
	return out
}

// observeResources takes the pods' resources from the StatefulSet's
// template, unless Config.PodResources fixes them. A template the state
// refuses (a quantity out of bounds) leaves the last ones in force and is
// logged. Called with the state locked.
func (s *Scheduler) observeResources(set *appsv1.StatefulSet) {
	if s.cfg.PodResources != nil {
		return
	}
	if err := s.st.SetPodResources(TemplateResources(set)); err != nil {
		s.log.Errorw("vsched: the StatefulSet's pod resources are not usable; the last ones stay in force",
			"statefulset", s.key.String(), "error", err)
	}
}

// checkCost refuses a source whose declared cost is malformed
// (vsched.VReplicaCostChecker) or out of bounds
// (vsched.ValidateVReplicaCost). A source that declares none pays two type
// assertions.
func checkCost(vpod vsched.VPod) error {
	if cc, ok := vpod.(vsched.VReplicaCostChecker); ok {
		if err := cc.VReplicaCostError(); err != nil {
			return fmt.Errorf("%s: %w", vpod.GetKey(), err)
		}
	}
	if c := vsched.VReplicaCost(vpod); c != nil {
		if err := vsched.ValidateVReplicaCost(c); err != nil {
			return fmt.Errorf("%s: %w", vpod.GetKey(), err)
		}
	}
	return nil
}
