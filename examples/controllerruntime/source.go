package controllerruntime

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// GroupVersion of Source.
var GroupVersion = schema.GroupVersion{Group: "example.vsched.dev", Version: "v1alpha1"}

// Source is an eventing source whose vreplicas vsched places: a minimal
// custom resource, standing in for yours.
type Source struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              SourceSpec   `json:"spec"`
	Status            SourceStatus `json:"status,omitempty"`
}

// SourceSpec is what the user asks for.
type SourceSpec struct {
	VReplicas int32 `json:"vreplicas"`
}

// SourceStatus is what the controller decided.
type SourceStatus struct {
	Placements []vsched.Placement `json:"placements,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SourceList is a list of Sources.
type SourceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Source `json:"items"`
}

var _ vsched.VPod = (*Source)(nil)

// GetKey implements vsched.VPod.
func (s *Source) GetKey() types.NamespacedName {
	return types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
}

// GetVReplicas implements vsched.VPod.
func (s *Source) GetVReplicas() int32 { return s.Spec.VReplicas }

// GetPlacements implements vsched.VPod.
func (s *Source) GetPlacements() []vsched.Placement { return s.Status.Placements }

// DeepCopyObject implements runtime.Object.
func (s *Source) DeepCopyObject() runtime.Object { return s.deepCopy() }

func (s *Source) deepCopy() *Source {
	out := *s
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Placements = slices.Clone(s.Status.Placements)
	out.Status.Conditions = slices.Clone(s.Status.Conditions)
	return &out
}

// DeepCopyObject implements runtime.Object.
func (l *SourceList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Source, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].deepCopy()
	}
	return &out
}

// AddToScheme registers Source and SourceList.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Source{}, &SourceList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
