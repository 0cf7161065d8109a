package knative

import (
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// The data keys of a source ConfigMap.
const (
	KeyVReplicas  = "vreplicas"
	KeyPlacements = "status.placements"
	KeyScheduled  = "status.scheduled"
)

// source is a ConfigMap read as a vsched.VPod.
type source struct{ cm *corev1.ConfigMap }

func (s source) GetKey() types.NamespacedName {
	return types.NamespacedName{Namespace: s.cm.Namespace, Name: s.cm.Name}
}

func (s source) GetResourceVersion() string { return s.cm.ResourceVersion }

// GetVReplicas reads "vreplicas"; a missing or malformed count is 0.
func (s source) GetVReplicas() int32 {
	n, _ := strconv.ParseInt(s.cm.Data[KeyVReplicas], 10, 32)
	return int32(n)
}

// GetPlacements reads "status.placements"; a malformed value is none.
func (s source) GetPlacements() []vsched.Placement {
	var p []vsched.Placement
	_ = json.Unmarshal([]byte(s.cm.Data[KeyPlacements]), &p)
	return p
}

// Scheduled reads the condition the controller wrote, if any.
func Scheduled(cm *corev1.ConfigMap) (metav1.Condition, bool) {
	var c metav1.Condition
	err := json.Unmarshal([]byte(cm.Data[KeyScheduled]), &c)
	return c, err == nil
}

// withStatus returns a copy of cm holding placements and cond.
func withStatus(cm *corev1.ConfigMap, placements []vsched.Placement, cond metav1.Condition) (*corev1.ConfigMap, error) {
	p, err := json.Marshal(placements)
	if err != nil {
		return nil, fmt.Errorf("placements: %w", err)
	}
	c, err := json.Marshal(cond)
	if err != nil {
		return nil, fmt.Errorf("condition: %w", err)
	}
	cm = cm.DeepCopy()
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[KeyPlacements], cm.Data[KeyScheduled] = string(p), string(c)
	return cm, nil
}

func asVPod(obj any) (vsched.VPod, bool) {
	cm, ok := obj.(*corev1.ConfigMap)
	return source{cm}, ok
}
