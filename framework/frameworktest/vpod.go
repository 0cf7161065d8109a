package frameworktest

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// VPod is vsched.PlainVPod under the name the fixtures use: tests build
// sources with NewVPod and pass *VPod around.
type VPod = vsched.PlainVPod

// NewVPod returns a source ns/name wanting vreplicas, placed as placements.
func NewVPod(ns, name string, vreplicas int32, placements ...vsched.Placement) *VPod {
	return &VPod{Key: types.NamespacedName{Namespace: ns, Name: name}, VReplicas: vreplicas, Placements: placements, ResourceVersion: "1"}
}

// P is a placement of n vreplicas on the fixture's pod with the ordinal.
func P(ordinal int32, n int32) vsched.Placement {
	return vsched.Placement{PodName: vsched.PodName(StatefulSetName, ordinal), VReplicas: n}
}
