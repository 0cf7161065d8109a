package frameworktest

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// VPod is a plain vsched.VPod (and vsched.ResourceCounter) for tests.
type VPod struct {
	Key             types.NamespacedName
	VReplicas       int32
	Placements      []vsched.Placement
	ResourceVersion string
	// Resources is the source's own resource count; 0 reports none.
	Resources int32
}

var (
	_ vsched.VPod            = &VPod{}
	_ vsched.ResourceCounter = &VPod{}
)

// NewVPod returns a source ns/name wanting vreplicas, placed as placements.
func NewVPod(ns, name string, vreplicas int32, placements ...vsched.Placement) *VPod {
	return &VPod{Key: types.NamespacedName{Namespace: ns, Name: name}, VReplicas: vreplicas, Placements: placements, ResourceVersion: "1"}
}

func (v *VPod) GetKey() types.NamespacedName      { return v.Key }
func (v *VPod) GetVReplicas() int32               { return v.VReplicas }
func (v *VPod) GetPlacements() []vsched.Placement { return v.Placements }
func (v *VPod) GetResourceVersion() string        { return v.ResourceVersion }
func (v *VPod) GetResourceCount() int32           { return v.Resources }

// P is a placement of n vreplicas on the fixture's pod with the ordinal.
func P(ordinal int32, n int32) vsched.Placement {
	return vsched.Placement{PodName: vsched.PodName(StatefulSetName, ordinal), VReplicas: n}
}
