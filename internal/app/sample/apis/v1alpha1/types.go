// Package v1alpha1 holds the SampleSource API (samplesources.samples.vsched.dev),
// the sample source whose vreplicas the sample controller places with vsched.
//
// There is no generated clientset: the controller and the e2e tests use the
// dynamic client and convert with FromUnstructured / ToUnstructured.
package v1alpha1

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/embedkit"
)

// Group, version and resource of SampleSource.
const (
	Group    = "samples.vsched.dev"
	Version  = "v1alpha1"
	Kind     = "SampleSource"
	Resource = "samplesources"
)

// Condition types and reasons: embedkit's, which embedkit.Condition sets.
const (
	// ConditionScheduled is True when every vreplica is placed. When False,
	// its reason says why vreplicas are pending and its message how many.
	ConditionScheduled = embedkit.ConditionScheduled

	ReasonAllPlaced = embedkit.ReasonAllPlaced
	// ReasonNotEnoughCapacity: some vreplicas wait for a pod (the
	// autoscaler grows the StatefulSet when it can).
	ReasonNotEnoughCapacity = embedkit.ReasonNotEnoughCapacity
	// ReasonScheduleFailed: the scheduler refused the source (bad spec,
	// no profile).
	ReasonScheduleFailed = embedkit.ReasonScheduleFailed
	// ReasonStatefulSetMissing: the adapter StatefulSet is missing; the
	// placements stay as they are until it is back.
	ReasonStatefulSetMissing = embedkit.ReasonStatefulSetMissing
)

// GroupVersionResource of SampleSource, for the dynamic client.
var GroupVersionResource = schema.GroupVersionResource{Group: Group, Version: Version, Resource: Resource}

// GroupVersionKind of SampleSource.
var GroupVersionKind = schema.GroupVersionKind{Group: Group, Version: Version, Kind: Kind}

// SampleSource is a source with vreplicas.
type SampleSource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SampleSourceSpec   `json:"spec"`
	Status SampleSourceStatus `json:"status,omitempty"`
}

// SampleSourceSpec is what the user asks for.
type SampleSourceSpec struct {
	// VReplicas is how many vreplicas to place (>= 0). The CRD's scale
	// subresource points at it (specReplicasPath), so that the source
	// autoscaler, an HPA or KEDA can set it.
	VReplicas int32 `json:"vreplicas"`
	// Partitions, when set (>= 1), caps the pods the source spreads over
	// (vsched.ResourceCounter; the NoMaxResourceCount plugin reads it).
	Partitions *int32 `json:"partitions,omitempty"`
}

// SampleSourceStatus is what the controller writes.
type SampleSourceStatus struct {
	// ObservedGeneration is the spec generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Placements are where the vreplicas run, in vsched's Placement shape.
	Placements []vsched.Placement `json:"placements,omitempty"`
	// PlacedVReplicas is the sum of Placements.
	PlacedVReplicas int32 `json:"placedVReplicas,omitempty"`
	// Conditions: Scheduled.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

var (
	_ vsched.VPod                = (*SampleSource)(nil)
	_ vsched.ResourceCounter     = (*SampleSource)(nil)
	_ vsched.VReplicaCoster      = (*SampleSource)(nil)
	_ vsched.VReplicaCostChecker = (*SampleSource)(nil)

	_ vsched.VReplicaCostMeasurer = (*SampleSource)(nil)
)

// GetKey implements vsched.VPod.
func (s *SampleSource) GetKey() types.NamespacedName {
	return types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
}

// GetVReplicas implements vsched.VPod.
func (s *SampleSource) GetVReplicas() int32 { return s.Spec.VReplicas }

// GetPlacements implements vsched.VPod.
func (s *SampleSource) GetPlacements() []vsched.Placement { return s.Status.Placements }

// GetResourceVersion implements vsched.VPod.
func (s *SampleSource) GetResourceVersion() string { return s.ResourceVersion }

// GetResourceCount implements vsched.ResourceCounter.
func (s *SampleSource) GetResourceCount() int32 {
	if s.Spec.Partitions == nil {
		return 0
	}
	return *s.Spec.Partitions
}

// GetVReplicaCost implements vsched.VReplicaCoster: the cost of one
// vreplica, from the annotation vsched.dev/vreplica-cost
// (vsched.CostAnnotation), for example "memory=512Mi,cpu=250m". No
// annotation, or a malformed one, declares none; a malformed one is
// refused by Schedule (VReplicaCostError).
func (s *SampleSource) GetVReplicaCost() corev1.ResourceList {
	l, err := vsched.ParseVReplicaCost(s.Annotations[vsched.CostAnnotation])
	if err != nil {
		return nil
	}
	return l
}

// MeasuresVReplicaCost implements vsched.VReplicaCostMeasurer: the cost
// annotation has the item "measured" ("measured", or
// "measured,cpu=250m" with cpu declared and the rest measured).
func (s *SampleSource) MeasuresVReplicaCost() bool {
	return vsched.CostDeclaresMeasured(s.Annotations[vsched.CostAnnotation])
}

// VReplicaCostError implements vsched.VReplicaCostChecker: why the cost
// annotation is malformed, nil when it is absent or well formed.
func (s *SampleSource) VReplicaCostError() error {
	if _, err := vsched.ParseVReplicaCost(s.Annotations[vsched.CostAnnotation]); err != nil {
		return fmt.Errorf("annotation %s: %w", vsched.CostAnnotation, err)
	}
	return nil
}

// Condition returns the condition of type t, or nil.
func (s *SampleSource) Condition(t string) *metav1.Condition {
	for i := range s.Status.Conditions {
		if s.Status.Conditions[i].Type == t {
			return &s.Status.Conditions[i]
		}
	}
	return nil
}

// FromUnstructured converts an object read with the dynamic client.
func FromUnstructured(u *unstructured.Unstructured) (*SampleSource, error) {
	var s SampleSource
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), &s); err != nil {
		return nil, fmt.Errorf("converting %s/%s to a SampleSource: %w", u.GetNamespace(), u.GetName(), err)
	}
	return &s, nil
}

// ToUnstructured converts s for the dynamic client, setting its apiVersion
// and kind.
func ToUnstructured(s *SampleSource) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(GroupVersionKind)
	return u, nil
}

// New returns a SampleSource to create.
func New(namespace, name string, vreplicas int32) *SampleSource {
	return &SampleSource{
		TypeMeta:   metav1.TypeMeta{APIVersion: Group + "/" + Version, Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       SampleSourceSpec{VReplicas: vreplicas},
	}
}
