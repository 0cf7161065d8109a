package knative

import (
	"k8s.io/apimachinery/pkg/types"
	duckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"

	"github.com/vsched/vsched"
)

// FromKnative converts Knative placements to vsched's. Zone and node are
// left empty: Knative does not record them.
func FromKnative(ps []duckv1alpha1.Placement) []vsched.Placement {
	if ps == nil {
		return nil
	}
	out := make([]vsched.Placement, len(ps))
	for i, p := range ps {
		out[i] = vsched.Placement{PodName: p.PodName, VReplicas: p.VReplicas}
	}
	return out
}

// ToKnative converts vsched placements to Knative's, dropping the zone and
// node names Knative's type has no field for.
func ToKnative(ps []vsched.Placement) []duckv1alpha1.Placement {
	if ps == nil {
		return nil
	}
	out := make([]duckv1alpha1.Placement, len(ps))
	for i, p := range ps {
		out[i] = duckv1alpha1.Placement{PodName: p.PodName, VReplicas: p.VReplicas}
	}
	return out
}

// VPod returns v as a vsched.VPod. Its placements are converted once, here:
// wrap the object as read, not one that changes afterwards. When v has a
// GetResourceCount() int32 method (its partition count, say), the result
// is a vsched.ResourceCounter too. A nil v gives nil.
func VPod(v scheduler.VPod) vsched.VPod {
	if v == nil {
		return nil
	}
	w := &vpod{v: v, placements: FromKnative(v.GetPlacements())}
	if c, ok := v.(vsched.ResourceCounter); ok {
		return &countingVPod{vpod: w, count: c}
	}
	return w
}

// Lister turns a Knative VPodLister into one for statefulset.Config.Lister
// (and FreshLister).
func Lister(l scheduler.VPodLister) vsched.VPodLister {
	return func() ([]vsched.VPod, error) {
		list, err := l()
		if err != nil {
			return nil, err
		}
		out := make([]vsched.VPod, len(list))
		for i, v := range list {
			out[i] = VPod(v)
		}
		return out, nil
	}
}

type vpod struct {
	v          scheduler.VPod
	placements []vsched.Placement
}

func (w *vpod) GetKey() types.NamespacedName      { return w.v.GetKey() }
func (w *vpod) GetVReplicas() int32               { return w.v.GetVReplicas() }
func (w *vpod) GetPlacements() []vsched.Placement { return w.placements }
func (w *vpod) GetResourceVersion() string        { return w.v.GetResourceVersion() }

type countingVPod struct {
	*vpod
	count vsched.ResourceCounter
}

func (w *countingVPod) GetResourceCount() int32 { return w.count.GetResourceCount() }
